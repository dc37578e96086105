package starframe

import (
	"context"
	"fmt"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"go.starlark.net/starlark"
)

// FromValue reads a frame from what Starlark gives: a frame (its rows,
// read under ctx), None (no rows), or an iterable of dicts, one a row
// (see FromRows). A table of more than maxRows rows is refused (0: no
// bound).
func FromValue(ctx context.Context, v starlark.Value, maxRows int) (*frame.Frame, error) {
	switch x := v.(type) {
	case *Frame:
		f, err := x.Rows(ctx)
		if err != nil {
			return nil, err
		}
		if maxRows > 0 && f.NumRows() > maxRows {
			return nil, fmt.Errorf("%d rows, over the limit of %d", f.NumRows(), maxRows)
		}
		return f, nil
	case starlark.NoneType:
		return frame.FromRows(nil, nil)
	case starlark.String, *starlark.Dict:
		return nil, fmt.Errorf("a %s, not a frame or a list of dicts", v.Type())
	case starlark.Iterable:
		return FromRows(x, maxRows)
	}
	return nil, fmt.Errorf("a %s, not a frame or a list of dicts", v.Type())
}

// FromRows builds a frame from an iterable of dicts, one per row. The
// columns are the keys in the order they first appear; a row without a
// key has null there. A column whose values are all instants as rows give
// them (strings such as "2026-01-02T03:04:05.000000") is a datetime64[ns]
// column again. More than maxRows rows are refused (0: no bound). Rows
// are counted from 0 in errors, as a list's indexes.
func FromRows(rows starlark.Iterable, maxRows int) (*frame.Frame, error) {
	if s, ok := rows.(starlark.Sequence); ok && maxRows > 0 && s.Len() > maxRows {
		return nil, fmt.Errorf("%d rows, over the limit of %d", s.Len(), maxRows)
	}
	var cols []string
	index := map[string]int{}
	var table [][]any
	it := rows.Iterate()
	defer it.Done()
	var v starlark.Value
	for n := 0; it.Next(&v); n++ {
		if maxRows > 0 && n >= maxRows {
			return nil, fmt.Errorf("over %d rows, the limit", maxRows)
		}
		d, ok := v.(*starlark.Dict)
		if !ok {
			return nil, fmt.Errorf("row %d is a %s, not a dict", n, v.Type())
		}
		row := make([]any, len(cols), max(len(cols), d.Len()))
		for _, item := range d.Items() {
			k, ok := starlark.AsString(item[0])
			if !ok {
				return nil, fmt.Errorf("row %d has a key of type %s; columns are named by strings", n, item[0].Type())
			}
			x, err := starvalue.FromStarlark(item[1])
			if err != nil {
				return nil, fmt.Errorf("row %d, column %q: %v", n, k, err)
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
	InstantColumns(len(cols), table)
	return frame.FromRows(cols, table)
}

// ColumnNames accepts one column name or a list or tuple of them.
func ColumnNames(v starlark.Value) ([]string, error) {
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

// StringList is ss as a Starlark list.
func StringList(ss []string) *starlark.List {
	out := make([]starlark.Value, len(ss))
	for i, s := range ss {
		out[i] = starlark.String(s)
	}
	return starlark.NewList(out)
}

// RowDict makes a row into a dict of column to value, in column order,
// each cell by the one conversion (starvalue.Scalar: a time is the
// string a record's time is).
func RowDict(cols []string, row []any) *starlark.Dict {
	d := starlark.NewDict(len(cols))
	for i, c := range cols {
		_ = d.SetKey(starlark.String(c), starvalue.Scalar(row[i]))
	}
	return d
}

// InstantColumns turns the columns of table whose every value is an
// instant's string (or null, with one at least) into times: the rows of a
// frame give its times as strings (one rule for instants), and a frame
// made of them again has the types it had.
func InstantColumns(ncols int, table [][]any) {
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

// instantColumn is InstantColumns for one column's values.
func instantColumn(vals []any) {
	seen := false
	for _, x := range vals {
		if x == nil {
			continue
		}
		s, ok := x.(string)
		if _, isInstant := starvalue.ParseInstant(s); !ok || !isInstant {
			return
		}
		seen = true
	}
	if !seen {
		return
	}
	for i, x := range vals {
		if x != nil {
			vals[i], _ = starvalue.ParseInstant(x.(string))
		}
	}
}
