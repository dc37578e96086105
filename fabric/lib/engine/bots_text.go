package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// This file holds the dm bots that split, join, parse and reformat text.

func init() {
	register(
		&bot{run: runExplode, doc: BotDoc{Streams: true, Tag: "@dm:explode",
			Description: "Splits the text of a column by sep into one row per item (items trimmed of spaces; a null or empty value keeps one row), repeating the other columns.",
			Params: []ParamDoc{
				p("column", "string", true, "", "the column to split"),
				p("sep", "string", false, ",", "the separator"),
			}}},
		&bot{run: runImplode, doc: BotDoc{Tag: "@dm:implode",
			Description: "Groups the rows by the group_by columns (in order of first appearance) and joins the texts of column in each group with sep (nulls skipped; a group of nulls gives null). The result has the group columns and column.",
			Params: []ParamDoc{
				p("column", "string", true, "", "the column to join"),
				p("sep", "string", false, ",", "the separator"),
				p("group_by", "list", false, "", "the columns to group by (all other columns when not given)"),
			}}},
		&bot{run: runExtract, check: checkExtract, doc: BotDoc{Streams: true, Tag: "@dm:extract",
			Description: "Matches an RE2 regex with named groups, (?P<name>...), against the text of a column and adds one column per group holding the text of its first match (null when the regex does not match).",
			Params: []ParamDoc{
				p("column", "string", true, "", "the column to match"),
				p("expr", "regex", true, "", "the regex, with at least one named group"),
			}}},
		&bot{run: runGrok, check: checkGrok, doc: BotDoc{Streams: true, Tag: "@dm:grok",
			Description: "Matches a grok pattern against the text of a column and adds one column per %{PATTERN:name} (or %{PATTERN:name:int|float}, typed) holding its match (null when the pattern does not match). Patterns: " + strings.Join(grokPatternNames(), ", ") + ".",
			Params: []ParamDoc{
				p("column", "string", true, "", "the column to match"),
				p("pattern", "string", true, "", "the grok pattern, such as '%{IP:client} %{WORD:method} %{URIPATHPARAM:path}'"),
			}}},
		&bot{run: runChangeTimeFormat, check: checkTimeFormats, doc: BotDoc{Streams: true, Tag: "@dm:change-time-format",
			Description: "Rewrites the times of columns from one format to another. Formats are strftime formats (%Y-%m-%d %H:%M:%S; see Python's strftime) or: auto (ISO 8601, RFC 3339 and common forms; numbers as epoch times in units told by their size), iso (RFC 3339 text), epoch, epoch_ms, epoch_us, epoch_ns (integers since 1970 in seconds ... nanoseconds) and datetime (a timestamp column). Datetime values are read as they are, whatever from_format says; results are in UTC.",
			Params: []ParamDoc{
				p("columns", "list", true, "", "the columns"),
				p("from_format", "string", false, "auto", "the format of the values"),
				p("to_format", "string", true, "", "the format to write them in"),
				p("on_error", "choice", false, "fail", "what a value that does not read does: fail the step or become null", "fail", "null"),
			}}},
	)
}

// column returns the position of the column named by param.
func column(p *params, param string, f *frame.Frame) (int, error) {
	pos, err := positions(param, f, []string{p.str(param)})
	if err != nil {
		return 0, err
	}
	return pos[0], nil
}

func runExplode(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	j, err := column(p, "column", in)
	if err != nil {
		return nil, err
	}
	sep := p.str("sep")
	var rows [][]any
	for i := 0; i < in.NumRows(); i++ {
		row := in.Row(i)
		var items []string
		if row[j] != nil && sep != "" {
			items = splitList(str(row[j]), sep)
		}
		if len(items) == 0 {
			rows = append(rows, row)
			continue
		}
		for _, it := range items {
			c := append([]any(nil), row...)
			c[j] = it
			rows = append(rows, c)
			if err := r.growing(len(rows), rowBytes(c)); err != nil {
				return nil, err
			}
		}
	}
	hints := kindsOf(in)
	hints[j] = kAny
	return build(in.Columns(), hints, rows)
}

func runImplode(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	j, err := column(p, "column", in)
	if err != nil {
		return nil, err
	}
	group := p.cols("group_by")
	if len(group) == 0 {
		for _, c := range in.Columns() {
			if c != p.str("column") {
				group = append(group, c)
			}
		}
	}
	gpos, err := positions("group_by", in, group)
	if err != nil {
		return nil, err
	}
	// output columns: the group columns and column, in the frame's order
	keep := map[int]bool{j: true}
	for _, g := range gpos {
		keep[g] = true
	}
	var outPos []int
	var cols []string
	var hints []kind
	ks := kindsOf(in)
	for c, name := range in.Columns() {
		if keep[c] {
			outPos = append(outPos, c)
			cols = append(cols, name)
			if c == j {
				hints = append(hints, kStr)
			} else {
				hints = append(hints, ks[c])
			}
		}
	}
	sep := p.str("sep")
	index := map[string]int{}
	var rows [][]any
	var parts [][]string
	for i := 0; i < in.NumRows(); i++ {
		row := in.Row(i)
		k := rowKey(row, gpos)
		g, ok := index[k]
		if !ok {
			g = len(rows)
			index[k] = g
			out := make([]any, len(outPos))
			for o, c := range outPos {
				out[o] = row[c]
			}
			rows = append(rows, out)
			parts = append(parts, nil)
		}
		if row[j] != nil {
			parts[g] = append(parts[g], str(row[j]))
		}
	}
	jo := 0
	for o, c := range outPos {
		if c == j {
			jo = o
		}
	}
	for g, row := range rows {
		row[jo] = nil
		if len(parts[g]) > 0 {
			row[jo] = strings.Join(parts[g], sep)
		}
	}
	return build(cols, hints, rows)
}

// namedGroups returns the named groups of a regex.
func namedGroups(re *regexp.Regexp) []string {
	var out []string
	for _, n := range re.SubexpNames() {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

func checkExtract(p *params) error {
	if len(namedGroups(regexp.MustCompile(p.str("expr")))) == 0 {
		return badParam("expr", "has no named group: name the parts to extract as (?P<name>...)")
	}
	return nil
}

// addMatches adds columns to the frame: match returns, for a text, the
// values of the columns (nil when it does not match).
func addMatches(in *frame.Frame, j int, names []string, types []kind, match func(string) []any) (*frame.Frame, error) {
	cols := in.Columns()
	hints := kindsOf(in)
	idx := colIndex(in)
	target := make([]int, len(names))
	for i, n := range names {
		if t, ok := idx[n]; ok {
			target[i] = t
			hints[t] = types[i]
			continue
		}
		idx[n] = len(cols)
		target[i] = len(cols)
		cols = append(cols, n)
		hints = append(hints, types[i])
	}
	rows := make([][]any, in.NumRows())
	for i := range rows {
		row := append(in.Row(i), make([]any, len(cols)-in.NumCols())...)
		var vals []any
		if row[j] != nil {
			vals = match(str(row[j]))
		}
		for k, t := range target {
			row[t] = nil
			if vals != nil {
				row[t] = vals[k]
			}
		}
		rows[i] = row
	}
	return build(cols, hints, rows)
}

func runExtract(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	j, err := column(p, "column", in)
	if err != nil {
		return nil, err
	}
	re := regexp.MustCompile(p.str("expr"))
	names := namedGroups(re)
	types := make([]kind, len(names))
	for i := range types {
		types[i] = kStr
	}
	return addMatches(in, j, names, types, func(s string) []any {
		m := re.FindStringSubmatch(s)
		if m == nil {
			return nil
		}
		out := make([]any, 0, len(names))
		for i, n := range re.SubexpNames() {
			if n != "" {
				out = append(out, m[i])
			}
		}
		return out
	})
}

func checkGrok(p *params) error {
	if _, err := compileGrok(p.str("pattern")); err != nil {
		return badParam("pattern", "is not a valid grok pattern: %v", err)
	}
	return nil
}

func runGrok(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	j, err := column(p, "column", in)
	if err != nil {
		return nil, err
	}
	g, err := compileGrok(p.str("pattern"))
	if err != nil {
		return nil, badParam("pattern", "is not a valid grok pattern: %v", err)
	}
	names := make([]string, len(g.fields))
	types := make([]kind, len(g.fields))
	for i, f := range g.fields {
		names[i], types[i] = f.name, f.kind
	}
	return addMatches(in, j, names, types, g.match)
}

// timeKeywords are the formats that are not strftime formats.
var timeKeywords = map[string]bool{"auto": true, "iso": true, "epoch": true, "epoch_ms": true,
	"epoch_us": true, "epoch_ns": true, "datetime": true}

var epochUnitsOf = map[string]int64{"epoch": 1, "epoch_ms": 1e3, "epoch_us": 1e6, "epoch_ns": 1e9}

func checkTimeFormats(p *params) error {
	for _, name := range []string{"from_format", "to_format"} {
		f := p.str(name)
		if timeKeywords[f] {
			if name == "to_format" && f == "auto" {
				return badParam(name, "must name a format to write: iso, epoch, epoch_ms, epoch_us, epoch_ns, datetime or a strftime format, not 'auto'")
			}
			continue
		}
		if !strings.Contains(f, "%") {
			return badParam(name, "must be auto, iso, epoch, epoch_ms, epoch_us, epoch_ns, datetime or a strftime format such as '%%Y-%%m-%%d %%H:%%M:%%S', not '%s'", f)
		}
		if err := checkStrftime(f); err != nil {
			return badParam(name, "is not a valid format: %v", err)
		}
	}
	return nil
}

// readTime reads a value in a format.
func readTime(v any, format string) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case int64:
		if ups, ok := epochUnitsOf[format]; ok {
			return epochInt(x, ups), nil
		}
		return epochAuto(x), nil
	case float64:
		if ups, ok := epochUnitsOf[format]; ok {
			return epochFloat(x, ups), nil
		}
		return epochAuto(x), nil
	case string:
		if ups, ok := epochUnitsOf[format]; ok {
			t := strings.TrimSpace(x)
			if n, err := strconv.ParseInt(t, 10, 64); err == nil {
				return epochInt(n, ups), nil
			}
			if f, err := strconv.ParseFloat(t, 64); err == nil {
				return epochFloat(f, ups), nil
			}
			return time.Time{}, fmt.Errorf("'%s' is not an epoch time", x)
		}
		if timeKeywords[format] {
			return parseTimeAuto(x)
		}
		return parseTime(format, x)
	}
	return time.Time{}, fmt.Errorf("cannot read %s as a time", quoteValue(v))
}

// writeTime writes a time in a format.
func writeTime(t time.Time, format string) any {
	switch format {
	case "datetime":
		return t
	case "iso":
		return t.UTC().Format(time.RFC3339Nano)
	}
	if ups, ok := epochUnitsOf[format]; ok {
		switch ups {
		case 1:
			return t.Unix()
		case 1e3:
			return t.UnixMilli()
		case 1e6:
			return t.UnixMicro()
		}
		return t.UnixNano()
	}
	return formatTime(t.UTC(), format)
}

func runChangeTimeFormat(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	cols := p.cols("columns")
	pos, err := positions("columns", in, cols)
	if err != nil {
		return nil, err
	}
	from, to := p.str("from_format"), p.str("to_format")
	toNull := p.str("on_error") == "null"
	k := kStr
	switch {
	case to == "datetime":
		k = kTime
	case epochUnitsOf[to] != 0:
		k = kInt
	}
	hints := kindsOf(in)
	for _, j := range pos {
		hints[j] = k
	}
	rows := rowsOf(in)
	for i, row := range rows {
		for n, j := range pos {
			if row[j] == nil {
				continue
			}
			t, err := readTime(row[j], from)
			if err != nil {
				if !toNull {
					return nil, paramErr("columns", "row %d, column '%s': %v", i, cols[n], err)
				}
				row[j] = nil
				continue
			}
			row[j] = writeTime(t, to)
		}
	}
	return build(in.Columns(), hints, rows)
}
