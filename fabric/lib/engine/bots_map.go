package engine

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// mapFuncs are the functions of @dm:map, with what they do.
var mapFuncs = []struct{ name, desc string }{
	{"fixed", "the value of 'value' (bare values are typed)"},
	{"copy", "the value itself"},
	{"join", "the texts of the from columns joined with sep, nulls skipped"},
	{"md5", "the hex MD5 digest of the text"},
	{"sha1", "the hex SHA-1 digest of the text"},
	{"sha256", "the hex SHA-256 digest of the text"},
	{"strip", "the text without leading and trailing white space"},
	{"lstrip", "the text without leading white space"},
	{"rstrip", "the text without trailing white space"},
	{"lower", "the text in lower case"},
	{"upper", "the text in upper case"},
	{"len", "the number of characters of the text"},
	{"time_now", "the current time (a timestamp)"},
	{"replace", "the text with the matches of the regex 'pattern' replaced by 'repl' (${1} or ${name} for groups)"},
	{"split", "the item 'index' (0-based; negative from the end) of the text split by sep, null when there is none"},
}

func init() {
	var names []string
	var desc []string
	for _, f := range mapFuncs {
		names = append(names, f.name)
		desc = append(desc, f.name+": "+f.desc)
	}
	register(&bot{run: runMap, check: checkMap, doc: BotDoc{Streams: true, Tag: "@dm:map",
		Description: "Computes the column to from the columns from with a function, row by row. The text of several from columns is their texts joined with sep. A null value gives null (but for fixed, join and time_now). Functions: " + strings.Join(desc, "; ") + ".",
		Params: []ParamDoc{
			p("from", "list", false, "", "the input columns (none for fixed and time_now)"),
			p("to", "string", false, "", "the output column (replaced if it exists; the from column when there is one)"),
			p("func", "choice", true, "", "the function", names...),
			p("value", "string", false, "", "the value of fixed"),
			p("sep", "string", false, ",", "the separator of join and split, and of several from columns"),
			p("pattern", "regex", false, "", "the regex of replace"),
			p("repl", "string", false, "", "the replacement of replace"),
			p("index", "int", false, "0", "the item of split"),
		}}})
}

func checkMap(p *params) error {
	fn := p.str("func")
	from := p.cols("from")
	switch fn {
	case "fixed", "time_now":
		if fn == "fixed" && !p.has("value") {
			return badParam("value", "is required by func 'fixed'")
		}
		if p.str("to") == "" && len(from) != 1 {
			return badParam("to", "is required by func '%s'", fn)
		}
		return nil
	}
	if len(from) == 0 {
		return badParam("from", "is required by func '%s'", fn)
	}
	if len(from) > 1 && p.str("to") == "" {
		return badParam("to", "is required with several 'from' columns")
	}
	if fn == "replace" && !p.has("pattern") {
		return badParam("pattern", "is required by func 'replace'")
	}
	return nil
}

// mapper computes a value from a row's input values.
type mapper func(vals []any) any

func (r *run) mapper(p *params) mapper {
	sep := p.str("sep")
	text := func(vals []any) (string, bool) {
		if len(vals) == 1 {
			return str(vals[0]), vals[0] != nil
		}
		parts := make([]string, 0, len(vals))
		for _, v := range vals {
			if v != nil {
				parts = append(parts, str(v))
			}
		}
		return strings.Join(parts, sep), len(parts) > 0
	}
	onText := func(f func(string) any) mapper {
		return func(vals []any) any {
			s, ok := text(vals)
			if !ok {
				return nil
			}
			return f(s)
		}
	}
	digest := func(h func([]byte) []byte) mapper {
		return onText(func(s string) any { return hex.EncodeToString(h([]byte(s))) })
	}
	switch p.str("func") {
	case "fixed":
		v := p.typed("value")
		return func([]any) any { return v }
	case "time_now":
		now := r.e.now().UTC()
		return func([]any) any { return now }
	case "copy":
		return func(vals []any) any {
			if len(vals) == 1 {
				return vals[0]
			}
			s, ok := text(vals)
			if !ok {
				return nil
			}
			return s
		}
	case "join":
		return func(vals []any) any { s, _ := text(vals); return s }
	case "md5":
		return digest(func(b []byte) []byte { s := md5.Sum(b); return s[:] })
	case "sha1":
		return digest(func(b []byte) []byte { s := sha1.Sum(b); return s[:] })
	case "sha256":
		return digest(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] })
	case "strip":
		return onText(func(s string) any { return strings.TrimSpace(s) })
	case "lstrip":
		return onText(func(s string) any { return strings.TrimLeft(s, " \t\r\n\v\f") })
	case "rstrip":
		return onText(func(s string) any { return strings.TrimRight(s, " \t\r\n\v\f") })
	case "lower":
		return onText(func(s string) any { return strings.ToLower(s) })
	case "upper":
		return onText(func(s string) any { return strings.ToUpper(s) })
	case "len":
		return onText(func(s string) any { return int64(utf8.RuneCountInString(s)) })
	case "replace":
		re, repl := regexp.MustCompile(p.str("pattern")), p.str("repl")
		return onText(func(s string) any { return re.ReplaceAllString(s, repl) })
	case "split":
		idx := p.int("index")
		return onText(func(s string) any {
			items := strings.Split(s, sep)
			i := idx
			if i < 0 {
				i += len(items)
			}
			if i < 0 || i >= len(items) {
				return nil
			}
			return items[i]
		})
	}
	return func([]any) any { return nil }
}

func runMap(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	from := p.cols("from")
	pos, err := positions("from", in, from)
	if err != nil {
		return nil, err
	}
	if len(from) == 0 {
		pos = nil
	}
	to := p.str("to")
	if to == "" {
		to = from[0]
	}
	cols := in.Columns()
	hints := kindsOf(in)
	t, exists := colIndex(in)[to]
	if exists {
		hints[t] = kAny
	} else {
		t = len(cols)
		cols = append(cols, to)
	}
	m := r.mapper(p)
	rows := rowsOf(in)
	vals := make([]any, len(pos))
	for i, row := range rows {
		for k, j := range pos {
			vals[k] = row[j]
		}
		v := m(vals)
		if exists {
			row[t] = v
		} else {
			rows[i] = append(row, v)
		}
	}
	return build(cols, hints, rows)
}
