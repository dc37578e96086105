package stdlib

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

func csvModule() starlark.Value {
	return doc.Module("csv", `CSV reading and writing (RFC 4180 quoting).`, starlark.StringDict{
		"decode": doc.Builtin("csv.decode", `decode(text, header=True, delimiter=",")

Parses CSV text. With header, the first record names the columns and each
later record becomes a dict from column name to str (missing trailing fields
are ""; extra fields are an error). Without header, returns a list of lists
of str. A leading byte order mark is ignored.`, csvDecode),
		"encode": doc.Builtin("csv.encode", `encode(rows, columns=None, delimiter=",", header=True)

Returns rows as CSV text ending in a newline. rows are dicts or lists.
For dicts, columns (a list of keys) defaults to the keys of the first row
in order, followed by any new keys of later rows; a missing key is an
empty field. For lists, columns only names the header. The header line
is written when header is true and there are columns. Values are written
as text: None as "", True/False as "True"/"False", floats as Python
prints them, lists and dicts as compact JSON.`, csvEncode),
	})
}

func delimiterArg(fn, delim string) (rune, error) {
	r, size := utf8.DecodeRuneInString(delim)
	if size == 0 || size != len(delim) || r == utf8.RuneError || r == '"' || r == '\r' || r == '\n' {
		return 0, fmt.Errorf("%s: delimiter must be a single character other than a quote or newline, got %q", fn, delim)
	}
	return r, nil
}

func csvDecode(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		text   string
		header = true
		delim  = ","
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "text", &text, "header?", &header, "delimiter?", &delim); err != nil {
		return nil, err
	}
	comma, err := delimiterArg(b.Name(), delim)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(text, "\ufeff")))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.ReuseRecord = false
	var (
		rows    []starlark.Value
		columns []string
	)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), err)
		}
		if !header {
			cells := make([]starlark.Value, len(rec))
			for i, c := range rec {
				cells[i] = starlark.String(c)
			}
			rows = append(rows, starlark.NewList(cells))
			continue
		}
		if columns == nil {
			columns = rec
			continue
		}
		if len(rec) > len(columns) {
			line, _ := r.FieldPos(0)
			return nil, fmt.Errorf("%s: line %d: %d fields, but the header has %d", b.Name(), line, len(rec), len(columns))
		}
		d := starlark.NewDict(len(columns))
		for i, col := range columns {
			cell := ""
			if i < len(rec) {
				cell = rec[i]
			}
			if err := d.SetKey(starlark.String(col), starlark.String(cell)); err != nil {
				return nil, err
			}
		}
		rows = append(rows, d)
	}
	return starlark.NewList(rows), nil
}

func csvEncode(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		rowsV    starlark.Iterable
		columnsV starlark.Value = starlark.None
		delim                   = ","
		header                  = true
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "rows", &rowsV, "columns?", &columnsV, "delimiter?", &delim, "header?", &header); err != nil {
		return nil, err
	}
	comma, err := delimiterArg(b.Name(), delim)
	if err != nil {
		return nil, err
	}
	rows := iterate(rowsV)
	var columns []string
	if columnsV != starlark.None {
		cols, ok := columnsV.(starlark.Iterable)
		if !ok {
			return nil, fmt.Errorf("%s: for parameter columns: got %s, want list of str", b.Name(), columnsV.Type())
		}
		for _, c := range iterate(cols) {
			s, ok := starlark.AsString(c)
			if !ok {
				return nil, fmt.Errorf("%s: columns must be strings, got %s", b.Name(), c.Type())
			}
			columns = append(columns, s)
		}
	} else {
		seen := map[string]bool{}
		for _, row := range rows {
			d, ok := row.(*starlark.Dict)
			if !ok {
				continue
			}
			for _, k := range d.Keys() {
				s, ok := starlark.AsString(k)
				if !ok {
					return nil, fmt.Errorf("%s: dict keys must be strings, got %s", b.Name(), k.Type())
				}
				if !seen[s] {
					seen[s] = true
					columns = append(columns, s)
				}
			}
		}
	}
	var out strings.Builder
	w := csv.NewWriter(&out)
	w.Comma = comma
	if header && len(columns) > 0 {
		if err := w.Write(columns); err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), err)
		}
	}
	for i, row := range rows {
		var rec []string
		switch r := row.(type) {
		case *starlark.Dict:
			rec = make([]string, len(columns))
			for j, col := range columns {
				v, found, _ := r.Get(starlark.String(col))
				if found {
					rec[j] = csvCell(v)
				}
			}
		case *starlark.List, starlark.Tuple:
			for _, v := range iterate(r.(starlark.Iterable)) {
				rec = append(rec, csvCell(v))
			}
		default:
			return nil, fmt.Errorf("%s: row %d is a %s, want dict or list", b.Name(), i, row.Type())
		}
		if err := w.Write(rec); err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return starlark.String(out.String()), nil
}

// csvCell renders a value as the text of a CSV field: None is "", bools
// are "True"/"False", strings themselves, floats as Python prints them,
// lists and dicts compact JSON, and anything else its str().
func csvCell(v starlark.Value) string {
	switch x := v.(type) {
	case starlark.NoneType:
		return ""
	case starlark.Bool:
		if x {
			return "True"
		}
		return "False"
	case starlark.String:
		return string(x)
	case starlark.Float:
		if f := float64(x); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return PyFloat(f)
		}
	case *starlark.Dict, *starlark.List, starlark.Tuple:
		if data, err := EncodeJSON(v, "", false); err == nil {
			return string(data)
		}
	}
	return v.String()
}

// iterate returns the elements of an iterable.
func iterate(x starlark.Iterable) []starlark.Value {
	var out []starlark.Value
	it := x.Iterate()
	defer it.Done()
	var v starlark.Value
	for it.Next(&v) {
		out = append(out, v)
	}
	return out
}
