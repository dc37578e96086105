package data

import (
	"context"
	"fmt"
	"github.com/fabricops/fabric/builtins"
	"sort"
	"sync"

	"github.com/fabricops/fabric/fabric/lib/cfxql/cfxarrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// Frame is the Starlark value of a frame. It is immutable: every method
// returns a new frame.
//
// A frame read from a file, a dataset or a job's output is lazy: it
// knows its input and the filter, select and head asked of it, and
// reads when a result is needed, pushing the work into the input (a
// Parquet file reads only the columns and row groups needed). len(),
// .columns and .dtypes come from metadata when the input has it;
// printing, indexing or iterating reads the rows once and keeps them;
// writing streams them; collect() reads them explicitly.
type Frame struct {
	mu  sync.Mutex
	f   *frame.Frame // the rows, once read
	lz  *lazy.Table  // the plan, for a lazy frame
	n   int64        // a lazy frame's count once known (-1 before)
	ctx context.Context
	err error // the failure of a read Starlark asked for without a thread
}

// NewFrameValue wraps f as a Starlark value.
func NewFrameValue(f *frame.Frame) *Frame { return &Frame{f: f} }

// NewLazyFrame wraps a lazy table; reads that Starlark asks for without a
// thread (len, printing, iteration) run under ctx.
func NewLazyFrame(ctx context.Context, t *lazy.Table) *Frame {
	return &Frame{lz: t, n: -1, ctx: ctx}
}

// setErr keeps the failure of a read Starlark asked for without a thread.
func (v *Frame) setErr(err error) {
	v.mu.Lock()
	v.err = err
	v.mu.Unlock()
}

// lastErr returns the failure setErr kept.
func (v *Frame) lastErr() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}

// sourceOf opens the rows of v, if v is a frame, as a stream: a lazy
// frame runs its plan, batch by batch. The caller closes the source.
func sourceOf(ctx context.Context, v starlark.Value) (frame.Source, bool, error) {
	fv, ok := v.(*Frame)
	if !ok {
		return nil, false, nil
	}
	f, lz := fv.state()
	if lz != nil {
		src, err := lz.Open(ctx)
		return src, true, err
	}
	return f.Source(), true, nil
}

// state returns the rows when read, or else the plan.
func (v *Frame) state() (*frame.Frame, *lazy.Table) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.f != nil {
		return v.f, nil
	}
	return nil, v.lz
}

// rows returns the frame's rows, reading them (once) when it is lazy.
func (v *Frame) rows(ctx context.Context) (*frame.Frame, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.f != nil {
		return v.f, nil
	}
	f, err := v.lz.Collect(ctx)
	if err != nil {
		return nil, err
	}
	v.f, v.err = f, nil
	return f, nil
}

// read is rows for a method called by a thread: Ctrl-C stops the read,
// and the failure of an earlier read without a thread is reported.
func (v *Frame) read(thread *starlark.Thread, b *starlark.Builtin) (*frame.Frame, error) {
	f, err := v.rows(host.Context(thread))
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return f, nil
}

// loaded is rows for what Starlark calls without a thread (Len, Index,
// Iterate, String): a failed read leaves an empty frame, and the error
// is kept for String and the next method call.
func (v *Frame) loaded() *frame.Frame {
	f, err := v.rows(v.ctx)
	if err != nil {
		v.setErr(err)
		return emptyRows
	}
	return f
}

var emptyRows, _ = frame.FromRows(nil, nil)

var (
	_ starlark.HasAttrs  = (*Frame)(nil)
	_ starlark.Indexable = (*Frame)(nil)
	_ starlark.Sequence  = (*Frame)(nil)
)

// String renders the frame as a table, as pandas prints a DataFrame.
func (v *Frame) String() string {
	f := v.loaded()
	if err := v.lastErr(); err != nil {
		return fmt.Sprintf("<frame: the read failed: %v>", err)
	}
	return f.String()
}

// Type returns "frame".
func (v *Frame) Type() string { return "frame" }

// Freeze does nothing: frames are immutable.
func (v *Frame) Freeze() {}

// Truth reports whether the frame has rows.
func (v *Frame) Truth() starlark.Bool { return v.Len() > 0 }

// Hash fails: frames are not hashable.
func (v *Frame) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: frame") }

// Len returns the number of rows: from metadata when a lazy frame's input
// tells it, by a streamed count otherwise (the rows are not kept, the
// count is).
func (v *Frame) Len() int {
	f, lz := v.state()
	if lz == nil {
		return f.NumRows()
	}
	v.mu.Lock()
	n := v.n
	v.mu.Unlock()
	if n >= 0 {
		return int(n)
	}
	n, err := lz.Count(v.ctx)
	if err != nil {
		v.setErr(err)
		return 0
	}
	v.mu.Lock()
	v.n = n
	v.mu.Unlock()
	return int(n)
}

// Index returns row i as a dict.
func (v *Frame) Index(i int) starlark.Value {
	f := v.loaded()
	return rowDict(f.Columns(), f.Row(i))
}

// Iterate yields the rows as dicts.
func (v *Frame) Iterate() starlark.Iterator { return &rowIterator{f: v.loaded()} }

type rowIterator struct {
	f *frame.Frame
	i int
}

func (it *rowIterator) Next(p *starlark.Value) bool {
	if it.i >= it.f.NumRows() {
		return false
	}
	*p = rowDict(it.f.Columns(), it.f.Row(it.i))
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
clause also picks and renames columns). On a lazy frame a query is
pushed into the read.`, (*Frame).filter},
	"collect": {`collect()

Reads a lazy frame's rows into memory and returns them as a frame (a
frame already in memory returns itself). A lazy frame reads its input
each time a result is asked of it; collect() once to reuse the rows.`, (*Frame).collect},
	"write": {`write(path, format="auto")

Writes the frame to a local file, atomically: csv, json, jsonl, parquet or
xlsx, from the extension with auto; .gz, .bz2, .xz, .zst compress CSV and
JSON. A lazy frame is streamed into the file. Returns the number of rows
written.`, (*Frame).write},
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
	case "columns", "dtypes", "num_columns":
		dts, err := v.dtypes()
		if err != nil {
			return nil, err
		}
		switch name {
		case "columns":
			names := make([]string, len(dts))
			for i, d := range dts {
				names[i] = d.Column
			}
			return stringList(names), nil
		case "dtypes":
			d := starlark.NewDict(len(dts))
			for _, t := range dts {
				_ = d.SetKey(starlark.String(t.Column), starlark.String(t.DType))
			}
			return d, nil
		}
		return starlark.MakeInt(len(dts)), nil
	case "num_rows":
		return starlark.MakeInt(v.Len()), nil
	case "shape":
		dts, err := v.dtypes()
		if err != nil {
			return nil, err
		}
		return starlark.Tuple{starlark.MakeInt(v.Len()), starlark.MakeInt(len(dts))}, nil
	case "mem_size_mb":
		return starlark.Float(v.loaded().MemSizeMB()), nil
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

// dtypes returns the columns and their types: from metadata for a lazy
// frame whose input has it.
func (v *Frame) dtypes() ([]frame.DType, error) {
	if _, lz := v.state(); lz != nil {
		dts, err := lz.Columns(v.ctx)
		if err != nil {
			return nil, err
		}
		if dts != nil {
			return dts, nil
		}
	}
	f := v.loaded()
	return f.DTypes(), v.lastErr()
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
	if _, lz := v.state(); lz != nil {
		return NewLazyFrame(host.Context(thread), lz.Head(n)), nil
	}
	f, err := v.read(thread, b)
	if err != nil {
		return nil, err
	}
	return NewFrameValue(f.Head(n)), nil
}

func (v *Frame) tail(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n := 5
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n?", &n); err != nil {
		return nil, err
	}
	f, err := v.read(thread, b)
	if err != nil {
		return nil, err
	}
	return NewFrameValue(f.Tail(n)), nil
}

func (v *Frame) selectCols(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cols starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "columns", &cols); err != nil {
		return nil, err
	}
	names, err := columnNames(cols)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	if _, lz := v.state(); lz != nil {
		next := lz.Select(names)
		if err := next.Check(host.Context(thread)); err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		return NewLazyFrame(host.Context(thread), next), nil
	}
	f, err := v.read(thread, b)
	if err != nil {
		return nil, err
	}
	out, err := f.Select(names)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
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
		return nil, builtins.Fail(b.Name(), err)
	}
	f, err := v.read(thread, b)
	if err != nil {
		return nil, err
	}
	out, err := f.Sort(names, desc)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return NewFrameValue(out), nil
}

func (v *Frame) rowsList(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	f, err := v.read(thread, b)
	if err != nil {
		return nil, err
	}
	cols := f.Columns()
	rows := make([]starlark.Value, f.NumRows())
	for i := range rows {
		rows[i] = rowDict(cols, f.Row(i))
	}
	return starlark.NewList(rows), nil
}

func (v *Frame) column(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	f, err := v.read(thread, b)
	if err != nil {
		return nil, err
	}
	vals, err := f.Column(name)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	out := make([]starlark.Value, len(vals))
	for i, x := range vals {
		out[i] = cellValue(x)
	}
	return starlark.NewList(out), nil
}

func (v *Frame) collect(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	f, err := v.read(thread, b)
	if err != nil {
		return nil, err
	}
	return NewFrameValue(f), nil
}

func (v *Frame) filter(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn); err != nil {
		return nil, err
	}
	if expr, ok := fn.(starlark.String); ok {
		q, err := cfxarrow.Parse(string(expr))
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		if _, lz := v.state(); lz != nil {
			next := lz.Filter(q)
			if err := next.Check(host.Context(thread)); err != nil {
				return nil, builtins.Fail(b.Name(), err)
			}
			return NewLazyFrame(host.Context(thread), next), nil
		}
		f, err := v.read(thread, b)
		if err != nil {
			return nil, err
		}
		out, err := q.Filter(f)
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		return NewFrameValue(out), nil
	}
	if _, ok := fn.(starlark.Callable); !ok {
		return nil, fmt.Errorf("%s: want a function of the row, not %s", b.Name(), fn.Type())
	}
	f, err := v.read(thread, b)
	if err != nil {
		return nil, err
	}
	cols := f.Columns()
	var keep []int
	for i := 0; i < f.NumRows(); i++ {
		res, err := starlark.Call(thread, fn, starlark.Tuple{rowDict(cols, f.Row(i))}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", b.Name(), i, err)
		}
		if res.Truth() {
			keep = append(keep, i)
		}
	}
	return NewFrameValue(f.Take(keep)), nil
}

func (v *Frame) write(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	format := "auto"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "format?", &format); err != nil {
		return nil, err
	}
	f, err := frame.ParseFormat(format)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	return v.writeFile(thread, b, path, f)
}

// writeFile writes the frame to path in format f: a lazy frame streams
// its plan into the file (see exportSource), holding a few batches.
func (v *Frame) writeFile(thread *starlark.Thread, b *starlark.Builtin, path string, f frame.Format) (starlark.Value, error) {
	fr, lz := v.state()
	if lz != nil {
		src, err := lz.Open(host.Context(thread))
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		defer src.Close()
		stats, err := exportSource(thread, src, path, f)
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		return starlark.MakeInt64(stats.Rows), nil
	}
	if err := fr.Write(host.From(thread).Path(path), f); err != nil {
		return nil, builtins.Fail(b.Name(), builtins.TrimPathError(err))
	}
	return starlark.MakeInt(fr.NumRows()), nil
}
