package data

import (
	"fmt"
	"github.com/fabricops/fabric/builtins"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// frameModule is the frame module: reading tables into frames and building
// them from rows. It also records the docs of a frame's methods, as
// doc.Builtin does for the module's own.
func frameModule() starlark.Value {
	for name, m := range frameMethods {
		doc.Register("frame."+name, m.text)
	}
	return doc.Module("frame", "Frames: Arrow-backed tables read from files or built from rows.", starlark.StringDict{
		"read": doc.Builtin("frame.read", `read(path, format="auto")

Reads a local file as a lazy frame: rows are read when a result is
needed, and a Parquet file reads only the columns and row groups the
frame's filters and selects need. format is auto (from the extension), csv,
json (an array of records), jsonl, parquet or xlsx; CSV and JSON may be
compressed (.gz, .bz2, .xz, .zst). Column types are inferred and named as
pandas names them: int64, float64, bool, object, datetime64[ns].`, frameRead),
		"from_rows": doc.Builtin("frame.from_rows", `from_rows(rows)

Builds a frame from a list of dicts, one per row. The columns are the keys
in the order they first appear; a row without a key has null there. A
column whose values are all instants as rows give them (strings such as
"2026-01-02T03:04:05.000000") is a datetime64[ns] column again.`, frameFromRows),
	})
}

func frameRead(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	format := "auto"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "format?", &format); err != nil {
		return nil, err
	}
	f, err := frame.ParseFormat(format)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	p := host.From(thread).Path(path)
	if _, _, err := frame.Detect(p, f); err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	ctx := host.Context(thread)
	t := lazy.New(lazy.NewFile(p, f))
	if err := t.Check(ctx); err != nil {
		return nil, builtins.Fail(b.Name(), builtins.TrimPathError(err))
	}
	return NewLazyFrame(ctx, t), nil
}

func frameFromRows(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rows starlark.Iterable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "rows", &rows); err != nil {
		return nil, err
	}
	var cols []string
	index := map[string]int{}
	var table [][]any
	it := rows.Iterate()
	defer it.Done()
	var v starlark.Value
	for n := 0; it.Next(&v); n++ {
		d, ok := v.(*starlark.Dict)
		if !ok {
			return nil, fmt.Errorf("%s: row %d is a %s, want a dict", b.Name(), n, v.Type())
		}
		row := make([]any, len(cols), len(cols)+1)
		for _, item := range d.Items() {
			k, ok := starlark.AsString(item[0])
			if !ok {
				return nil, fmt.Errorf("%s: row %d has key %s; column names are strings", b.Name(), n, item[0])
			}
			x, err := starvalue.FromStarlark(item[1])
			if err != nil {
				return nil, fmt.Errorf("%s: row %d, column %q: %v", b.Name(), n, k, err)
			}
			i, seen := index[k]
			if !seen {
				i = len(cols)
				index[k] = i
				cols = append(cols, k)
				row = append(row, nil)
			}
			row[i] = x
		}
		table = append(table, row)
	}
	instantColumns(len(cols), table)
	fr, err := frame.FromRows(cols, table)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return NewFrameValue(fr), nil
}

// columnNames accepts one column name or a list or tuple of them.
func columnNames(v starlark.Value) ([]string, error) {
	if s, ok := starlark.AsString(v); ok {
		return []string{s}, nil
	}
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("want a column name or a list of them, not %s", v.Type())
	}
	var names []string
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for iter.Next(&x) {
		s, ok := starlark.AsString(x)
		if !ok {
			return nil, fmt.Errorf("column names are strings, not %s", x.Type())
		}
		names = append(names, s)
	}
	return names, nil
}

func stringList(ss []string) *starlark.List {
	out := make([]starlark.Value, len(ss))
	for i, s := range ss {
		out[i] = starlark.String(s)
	}
	return starlark.NewList(out)
}

// rowDict makes a row into a dict of column to value, in column order.
func rowDict(cols []string, row []any) *starlark.Dict {
	d := starlark.NewDict(len(cols))
	for i, c := range cols {
		_ = d.SetKey(starlark.String(c), cellValue(row[i]))
	}
	return d
}

// cellValue converts a frame cell (see frame.Frame.Row) to Starlark, by
// the one conversion: a time is the string a record's time is.
func cellValue(x any) starlark.Value { return starvalue.Scalar(x) }

// instantColumns turns the columns of table whose every value is an
// instant's string (or null, with one at least) into times: the rows of a
// frame give its times as strings (one rule for instants), and a frame
// made of them again has the types it had.
func instantColumns(ncols int, table [][]any) {
	for c := 0; c < ncols; c++ {
		seen := false
		all := true
		for _, row := range table {
			if c >= len(row) || row[c] == nil {
				continue
			}
			s, ok := row[c].(string)
			if _, isInstant := starvalue.ParseInstant(s); !ok || !isInstant {
				all = false
				break
			}
			seen = true
		}
		if !all || !seen {
			continue
		}
		for _, row := range table {
			if c < len(row) && row[c] != nil {
				row[c], _ = starvalue.ParseInstant(row[c].(string))
			}
		}
	}
}
