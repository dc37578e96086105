//go:build !lean

package builtins

import (
	"fmt"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/value"
	starlarktime "go.starlark.net/lib/time"
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

Reads a local file into a frame. format is auto (from the extension), csv,
json (an array of records), jsonl, parquet or xlsx; CSV and JSON may be
compressed (.gz, .bz2, .xz, .zst). Column types are inferred and named as
pandas names them: int64, float64, bool, object, datetime64[ns].`, frameRead),
		"from_rows": doc.Builtin("frame.from_rows", `from_rows(rows)

Builds a frame from a list of dicts, one per row. The columns are the keys
in the order they first appear; a row without a key has null there.`, frameFromRows),
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
		return nil, fail(b.Name(), err)
	}
	fr, err := frame.Read(host.From(thread).Path(path), f)
	if err != nil {
		return nil, fail(b.Name(), trimPathError(err))
	}
	return NewFrameValue(fr), nil
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
			x, err := value.FromStarlark(item[1])
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
	fr, err := frame.FromRows(cols, table)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return NewFrameValue(fr), nil
}

// Frame is the Starlark value of a frame. It is immutable: every method
// returns a new frame.
type Frame struct{ f *frame.Frame }

// NewFrameValue wraps f as a Starlark value.
func NewFrameValue(f *frame.Frame) *Frame { return &Frame{f: f} }

// FrameOf returns the frame inside v, if v is a frame.
func FrameOf(v starlark.Value) (*frame.Frame, bool) {
	fv, ok := v.(*Frame)
	if !ok {
		return nil, false
	}
	return fv.f, true
}

var (
	_ starlark.HasAttrs  = (*Frame)(nil)
	_ starlark.Indexable = (*Frame)(nil)
	_ starlark.Sequence  = (*Frame)(nil)
)

// String renders the frame as a table, as pandas prints a DataFrame.
func (v *Frame) String() string { return v.f.String() }

// Type returns "frame".
func (v *Frame) Type() string { return "frame" }

// Freeze does nothing: frames are immutable.
func (v *Frame) Freeze() {}

// Truth reports whether the frame has rows.
func (v *Frame) Truth() starlark.Bool { return v.f.NumRows() > 0 }

// Hash fails: frames are not hashable.
func (v *Frame) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: frame") }

// Len returns the number of rows.
func (v *Frame) Len() int { return v.f.NumRows() }

// Index returns row i as a dict.
func (v *Frame) Index(i int) starlark.Value { return rowDict(v.f.Columns(), v.f.Row(i)) }

// Iterate yields the rows as dicts.
func (v *Frame) Iterate() starlark.Iterator { return &rowIterator{v: v} }

type rowIterator struct {
	v *Frame
	i int
}

func (it *rowIterator) Next(p *starlark.Value) bool {
	if it.i >= it.v.f.NumRows() {
		return false
	}
	*p = it.v.Index(it.i)
	it.i++
	return true
}

func (it *rowIterator) Done() {}

// frameMethods are the methods of a frame, with their docs.
var frameMethods = map[string]struct {
	text string
	fn   func(v *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
}{
	"head":   {"head(n=5)\n\nReturns the first n rows.", (*Frame).head},
	"tail":   {"tail(n=5)\n\nReturns the last n rows.", (*Frame).tail},
	"select": {"select(columns)\n\nReturns the named columns (a list, or one name), in that order.", (*Frame).selectCols},
	"sort":   {"sort(by, desc=False)\n\nReturns the rows ordered by a column or a list of columns.", (*Frame).sortBy},
	"rows":   {"rows()\n\nReturns the rows as a list of dicts.", (*Frame).rowsList},
	"column": {"column(name)\n\nReturns the values of a column as a list.", (*Frame).column},
	"filter": {`filter(fn_or_query)

Returns the rows that match: fn(row) is true (row is a dict of column to
value), or a CFXQL query matches ("cpu > 90 and host ~ 'web'"; a GET
clause also picks and renames columns).`, (*Frame).filter},
	"write": {`write(path, format="auto")

Writes the frame to a local file, atomically: csv, json, jsonl, parquet or
xlsx, from the extension with auto; .gz, .bz2, .xz, .zst compress CSV and
JSON. Returns the number of rows written.`, (*Frame).write},
	"to_csv":     {"to_csv(path)\n\nWrites the frame as CSV (compressed by a .gz, .bz2, .xz or .zst extension); returns the rows written.", writeAs(frame.CSV)},
	"to_json":    {"to_json(path)\n\nWrites the frame as a JSON array of records; returns the rows written.", writeAs(frame.JSON)},
	"to_parquet": {"to_parquet(path)\n\nWrites the frame as Parquet; returns the rows written.", writeAs(frame.Parquet)},
}

// writeAs is the method writing a frame in one format.
func writeAs(f frame.Format) func(v *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return func(v *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var path string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
			return nil, err
		}
		return v.writeFile(thread, b, path, f)
	}
}

// Attr returns a frame's attribute or method.
func (v *Frame) Attr(name string) (starlark.Value, error) {
	switch name {
	case "columns":
		return stringList(v.f.Columns()), nil
	case "dtypes":
		d := starlark.NewDict(v.f.NumCols())
		for _, t := range v.f.DTypes() {
			_ = d.SetKey(starlark.String(t.Column), starlark.String(t.DType))
		}
		return d, nil
	case "num_rows":
		return starlark.MakeInt(v.f.NumRows()), nil
	case "num_columns":
		return starlark.MakeInt(v.f.NumCols()), nil
	case "shape":
		return starlark.Tuple{starlark.MakeInt(v.f.NumRows()), starlark.MakeInt(v.f.NumCols())}, nil
	case "mem_size_mb":
		return starlark.Float(v.f.MemSizeMB()), nil
	}
	m, ok := frameMethods[name]
	if !ok {
		return nil, nil
	}
	fn := m.fn
	return starlark.NewBuiltin("frame."+name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return fn(v, thread, b, args, kwargs)
	}).BindReceiver(v), nil
}

// AttrNames lists a frame's attributes and methods.
func (v *Frame) AttrNames() []string {
	names := []string{"columns", "dtypes", "mem_size_mb", "num_columns", "num_rows", "shape"}
	for name := range frameMethods {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (v *Frame) head(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n := 5
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n?", &n); err != nil {
		return nil, err
	}
	return NewFrameValue(v.f.Head(n)), nil
}

func (v *Frame) tail(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n := 5
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n?", &n); err != nil {
		return nil, err
	}
	return NewFrameValue(v.f.Tail(n)), nil
}

func (v *Frame) selectCols(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cols starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "columns", &cols); err != nil {
		return nil, err
	}
	names, err := columnNames(cols)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	out, err := v.f.Select(names)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return NewFrameValue(out), nil
}

func (v *Frame) sortBy(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var by starlark.Value
	desc := false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "by", &by, "desc?", &desc); err != nil {
		return nil, err
	}
	names, err := columnNames(by)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	out, err := v.f.Sort(names, desc)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return NewFrameValue(out), nil
}

func (v *Frame) rowsList(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	cols := v.f.Columns()
	rows := make([]starlark.Value, v.f.NumRows())
	for i := range rows {
		rows[i] = rowDict(cols, v.f.Row(i))
	}
	return starlark.NewList(rows), nil
}

func (v *Frame) column(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	vals, err := v.f.Column(name)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	out := make([]starlark.Value, len(vals))
	for i, x := range vals {
		out[i] = cellValue(x)
	}
	return starlark.NewList(out), nil
}

func (v *Frame) filter(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn); err != nil {
		return nil, err
	}
	if expr, ok := fn.(starlark.String); ok {
		q, err := cfxql.Parse(string(expr))
		if err != nil {
			return nil, fail(b.Name(), err)
		}
		out, err := q.Filter(v.f)
		if err != nil {
			return nil, fail(b.Name(), err)
		}
		return NewFrameValue(out), nil
	}
	if _, ok := fn.(starlark.Callable); !ok {
		return nil, fmt.Errorf("%s: want a function of the row, not %s", b.Name(), fn.Type())
	}
	cols := v.f.Columns()
	var keep []int
	for i := 0; i < v.f.NumRows(); i++ {
		res, err := starlark.Call(thread, fn, starlark.Tuple{rowDict(cols, v.f.Row(i))}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", b.Name(), i, err)
		}
		if res.Truth() {
			keep = append(keep, i)
		}
	}
	return NewFrameValue(v.f.Take(keep)), nil
}

func (v *Frame) write(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	format := "auto"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "format?", &format); err != nil {
		return nil, err
	}
	f, err := frame.ParseFormat(format)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return v.writeFile(thread, b, path, f)
}

func (v *Frame) writeFile(thread *starlark.Thread, b *starlark.Builtin, path string, f frame.Format) (starlark.Value, error) {
	if err := v.f.Write(host.From(thread).Path(path), f); err != nil {
		return nil, fail(b.Name(), trimPathError(err))
	}
	return starlark.MakeInt(v.f.NumRows()), nil
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

// cellValue converts a frame cell (see frame.Frame.Row) to Starlark; times
// become time.time values so that they compare and round-trip.
func cellValue(x any) starlark.Value {
	switch t := x.(type) {
	case nil:
		return starlark.None
	case bool:
		return starlark.Bool(t)
	case int64:
		return starlark.MakeInt64(t)
	case uint64:
		return starlark.MakeUint64(t)
	case float64:
		return starlark.Float(t)
	case string:
		return starlark.String(t)
	case time.Time:
		return starlarktime.Time(t)
	}
	return starlark.String(fmt.Sprint(x))
}
