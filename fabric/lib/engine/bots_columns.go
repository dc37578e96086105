package engine

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// This file holds the dm bots that pick, name and type columns.

func init() {
	register(
		&bot{run: runSelectColumns, doc: BotDoc{Streams: true, Tag: "@dm:selectcolumns",
			Description: "Keeps the columns whose whole name matches include and not exclude (RE2 regexes), in their order.",
			Params: []ParamDoc{
				p("include", "regex", false, ".*", "the columns to keep"),
				p("exclude", "regex", false, "", "the columns to drop among them"),
			}}},
		&bot{run: runRename, free: true, doc: BotDoc{Streams: true, Tag: "@dm:rename-columns",
			Description: "Renames columns: each parameter new = 'old' renames the column old to new.",
			Params:      []ParamDoc{p("<column>", "string", false, "", "the new name of the column named by the value")}}},
		&bot{run: runAddMissing, doc: BotDoc{Streams: true, Tag: "@dm:add-missing-columns",
			Description: "Adds the listed columns the frame lacks, filled with value.",
			Params: []ParamDoc{
				p("columns", "list", true, "", "the columns the frame must have"),
				p("value", "string", false, "", "the value of the added columns (bare values are typed; null when not given)"),
			}}},
		&bot{run: runFixNull, doc: BotDoc{Streams: true, Tag: "@dm:fixnull",
			Description: "Replaces the nulls of columns by value, converted to the column's type when it reads as one.",
			Params: []ParamDoc{
				p("columns", "list", false, "", "the columns (all when not given)"),
				p("value", "string", true, "", "the replacement (bare values are typed)"),
			}}},
		&bot{run: runToType, doc: BotDoc{Streams: true, Tag: "@dm:to-type",
			Description: "Converts columns to a type: int (floats truncated; text parsed), float, str (as text), bool (true/yes/1 and false/no/0; numbers are true when not 0) or datetime (RFC 3339 and common date-time texts; numbers are epoch seconds, milliseconds, microseconds or nanoseconds, told by their size).",
			Params: []ParamDoc{
				p("columns", "list", true, "", "the columns"),
				p("type", "choice", true, "", "the type", "int", "float", "str", "bool", "datetime"),
				p("on_error", "choice", false, "fail", "what a value that does not convert does: fail the step or become null", "fail", "null"),
			}}},
	)
}

func runSelectColumns(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	keep, err := selectedColumns(p, in.Columns())
	if err != nil {
		return nil, err
	}
	if len(keep) == in.NumCols() {
		return in, nil
	}
	return in.Select(keep)
}

// selectedColumns returns the columns of cols a selectcolumns step keeps:
// those its include pattern matches and its exclude pattern does not.
func selectedColumns(p *params, cols []string) ([]string, error) {
	inc, err := regexp.Compile("^(?:" + p.str("include") + ")$")
	if err != nil {
		return nil, badParam("include", "is not a valid regex: %v", err)
	}
	var exc *regexp.Regexp
	if e := p.str("exclude"); e != "" {
		if exc, err = regexp.Compile("^(?:" + e + ")$"); err != nil {
			return nil, badParam("exclude", "is not a valid regex: %v", err)
		}
	}
	var keep []string
	for _, c := range cols {
		if inc.MatchString(c) && (exc == nil || !exc.MatchString(c)) {
			keep = append(keep, c)
		}
	}
	return keep, nil
}

// renameSource streams a frame's batches under a schema of new names.
type renameSource struct {
	frame.Source
	schema *arrow.Schema
}

func (s *renameSource) Schema() *arrow.Schema { return s.schema }

func (s *renameSource) Next() (arrow.Record, error) {
	rec, err := s.Source.Next()
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return array.NewRecord(s.schema, rec.Columns(), rec.NumRows()), nil
}

// renamed returns f with its columns named names (without copying).
func renamed(f *frame.Frame, names []string) (*frame.Frame, error) {
	fields := f.Schema().Fields()
	for i := range fields {
		fields[i].Name = names[i]
	}
	return frame.ReadFrom(&renameSource{Source: f.Source(), schema: arrow.NewSchema(fields, nil)})
}

func runRename(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	names := in.Columns()
	idx := colIndex(in)
	for _, q := range p.list {
		j, ok := idx[q.Value]
		if !ok {
			return nil, missingColumn(q.Key, q.Value, in)
		}
		names[j] = q.Key
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, paramErr(n, "renaming makes two columns named '%s'", n)
		}
		seen[n] = true
	}
	return renamed(in, names)
}

func runAddMissing(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	cols := in.Columns()
	idx := colIndex(in)
	var add []string
	for _, c := range p.cols("columns") {
		if _, ok := idx[c]; !ok {
			idx[c] = -1
			add = append(add, c)
		}
	}
	if len(add) == 0 {
		return in, nil
	}
	v := p.typed("value")
	hints := kindsOf(in)
	rows := rowsOf(in)
	for i := range rows {
		for range add {
			rows[i] = append(rows[i], v)
		}
	}
	return build(append(cols, add...), hints, rows)
}

func runFixNull(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	pos, err := positions("columns", in, p.cols("columns"))
	if err != nil {
		return nil, err
	}
	v := p.typed("value")
	hints := kindsOf(in)
	vals := make([]any, len(pos))
	for i, j := range pos {
		vals[i] = coerce(v, hints[j])
	}
	rows := rowsOf(in)
	for _, row := range rows {
		for i, j := range pos {
			if row[j] == nil {
				row[j] = vals[i]
			}
		}
	}
	return build(in.Columns(), hints, rows)
}

// coerce converts v to kind k when it reads as one, and returns it as is
// otherwise.
func coerce(v any, k kind) any {
	switch k {
	case kInt, kFloat, kBool, kTime:
		if c, err := convert(v, k); err == nil {
			return c
		}
	case kStr:
		if v != nil {
			return str(v)
		}
	}
	return v
}

var typeKinds = map[string]kind{"int": kInt, "float": kFloat, "str": kStr, "bool": kBool, "datetime": kTime}

// convert converts a value to a kind; nil stays nil.
func convert(v any, k kind) (any, error) {
	v = norm(v)
	if v == nil {
		return nil, nil
	}
	switch k {
	case kStr:
		return str(v), nil
	case kInt:
		switch x := v.(type) {
		case int64:
			return x, nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 9.2e18 {
				break
			}
			return int64(x), nil
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		case time.Time:
			return x.Unix(), nil
		case string:
			t := strings.TrimSpace(x)
			if n, err := strconv.ParseInt(t, 10, 64); err == nil {
				return n, nil
			}
			if f, err := strconv.ParseFloat(t, 64); err == nil {
				return convert(f, kInt)
			}
		}
	case kFloat:
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		case bool:
			if x {
				return 1.0, nil
			}
			return 0.0, nil
		case time.Time:
			return float64(x.UnixNano()) / 1e9, nil
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return f, nil
			}
		}
	case kBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		case float64:
			return x != 0, nil
		case string:
			if strings.TrimSpace(x) != "" {
				if b, ok := parseBool(x); ok {
					return b, nil
				}
			}
		}
	case kTime:
		switch x := v.(type) {
		case time.Time:
			return x, nil
		case int64, float64:
			return epochAuto(x), nil
		case string:
			if t, err := parseTimeAuto(x); err == nil {
				return t, nil
			}
		}
	}
	names := map[kind]string{kInt: "int", kFloat: "float", kBool: "bool", kTime: "datetime"}
	return nil, fmt.Errorf("cannot convert %s to %s", quoteValue(v), names[k])
}

// quoteValue renders a value for an error message.
func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return "'" + s + "'"
	}
	return str(v)
}

func runToType(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	cols := p.cols("columns")
	pos, err := positions("columns", in, cols)
	if err != nil {
		return nil, err
	}
	k := typeKinds[p.str("type")]
	toNull := p.str("on_error") == "null"
	hints := kindsOf(in)
	for _, j := range pos {
		hints[j] = k
	}
	rows := rowsOf(in)
	for i, row := range rows {
		for n, j := range pos {
			c, err := convert(row[j], k)
			if err != nil {
				if !toNull {
					return nil, paramErr("columns", "row %d, column '%s': %v", i, cols[n], err)
				}
				c = nil
			}
			row[j] = c
		}
	}
	return build(in.Columns(), hints, rows)
}
