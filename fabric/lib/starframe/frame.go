// Package starframe is the frame as Starlark sees it: an immutable table
// of Arrow record batches with methods (head, select, filter, sort,
// with_column, ...), iterable as dicts of column to value. The shell's
// workflows and the bots of bot packages see the same value: the shell
// adds its file methods (write, to_csv, ...) and lazy inputs through a
// Kit, a worker gives its bots the frame in hand without a copy.
package starframe

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"go.starlark.net/starlark"
)

// Method is a frame method a Kit adds.
type Method struct {
	// Doc is its help: a signature line, a blank line, then the text.
	Doc string
	// Fn runs it on the frame v.
	Fn func(v *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
}

// Kit is what a build gives its frames: the context of a thread's reads,
// how a method's error reads, and the build's own methods.
type Kit struct {
	// Context is the context of a read a thread asks for (Ctrl-C, a
	// job's deadline); nil: context.Background.
	Context func(*starlark.Thread) context.Context
	// Fail makes a method's error (nil: "frame.NAME: err").
	Fail func(name string, err error) error
	// Methods are the build's methods besides the common ones.
	Methods map[string]Method
}

func (k *Kit) context(thread *starlark.Thread) context.Context {
	if k == nil || k.Context == nil {
		return context.Background()
	}
	return k.Context(thread)
}

func (k *Kit) fail(name string, err error) error {
	if k == nil || k.Fail == nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return k.Fail(name, err)
}

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
	kit *Kit
	mu  sync.Mutex
	f   *frame.Frame // the rows, once read
	lz  *lazy.Table  // the plan, for a lazy frame
	n   int64        // a lazy frame's count once known (-1 before)
	ctx context.Context
	err error // the failure of a read Starlark asked for without a thread
}

// New wraps the rows f as a Starlark value with kit's methods.
func (k *Kit) New(f *frame.Frame) *Frame { return &Frame{kit: k, f: f} }

// NewLazy wraps a lazy table; reads that Starlark asks for without a
// thread (len, printing, iteration) run under ctx.
func (k *Kit) NewLazy(ctx context.Context, t *lazy.Table) *Frame {
	return &Frame{kit: k, lz: t, n: -1, ctx: ctx}
}

// Kit returns the kit the frame was made with.
func (v *Frame) Kit() *Kit { return v.kit }

// State returns the rows when read, or else the plan.
func (v *Frame) State() (*frame.Frame, *lazy.Table) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.f != nil {
		return v.f, nil
	}
	return nil, v.lz
}

// Source opens the frame's rows as a stream: a lazy frame runs its plan,
// batch by batch. The caller closes it.
func (v *Frame) Source(ctx context.Context) (frame.Source, error) {
	f, lz := v.State()
	if lz != nil {
		return lz.Open(ctx)
	}
	return f.Source(), nil
}

// Rows returns the frame's rows, reading them (once) when it is lazy.
func (v *Frame) Rows(ctx context.Context) (*frame.Frame, error) {
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

// Read is Rows for a method a thread calls: the thread's context bounds
// the read, and its failure is the method's.
func (v *Frame) Read(thread *starlark.Thread, b *starlark.Builtin) (*frame.Frame, error) {
	f, err := v.Rows(v.kit.context(thread))
	if err != nil {
		return nil, v.kit.fail(b.Name(), err)
	}
	return f, nil
}

func (v *Frame) setErr(err error) {
	v.mu.Lock()
	v.err = err
	v.mu.Unlock()
}

func (v *Frame) lastErr() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}

// loaded is Rows for what Starlark calls without a thread (Len, Index,
// Iterate, String): a failed read leaves an empty frame, and the error
// is kept for String and the next method call.
func (v *Frame) loaded() *frame.Frame {
	f, err := v.Rows(v.ctx)
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
	f, lz := v.State()
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
	return RowDict(f.Columns(), f.Row(i))
}

// Iterate yields the rows as dicts.
func (v *Frame) Iterate() starlark.Iterator { return &rowIterator{f: v.loaded()} }

type rowIterator struct {
	f    *frame.Frame
	cols []string
	i    int
}

func (it *rowIterator) Next(p *starlark.Value) bool {
	if it.i >= it.f.NumRows() {
		return false
	}
	if it.cols == nil {
		it.cols = it.f.Columns()
	}
	*p = RowDict(it.cols, it.f.Row(it.i))
	it.i++
	return true
}

func (it *rowIterator) Done() {}

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
			return StringList(names), nil
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
	fn := v.method(name)
	if fn == nil {
		return nil, nil
	}
	return starlark.NewBuiltin("frame."+name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return fn(v, thread, b, args, kwargs)
	}).BindReceiver(v), nil
}

// method is the function of a method name: the kit's, then the common ones.
func (v *Frame) method(name string) func(v *Frame, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if v.kit != nil {
		if m, ok := v.kit.Methods[name]; ok {
			return m.Fn
		}
	}
	if m, ok := methods[name]; ok {
		return m.Fn
	}
	return nil
}

// dtypes returns the columns and their types: from metadata for a lazy
// frame whose input has it.
func (v *Frame) dtypes() ([]frame.DType, error) {
	if _, lz := v.State(); lz != nil {
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
	for name := range v.kit.Docs() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Docs returns the help of the methods of the kit's frames, by name.
func (k *Kit) Docs() map[string]string {
	out := map[string]string{}
	for name, m := range methods {
		out[name] = m.Doc
	}
	if k != nil {
		for name, m := range k.Methods {
			out[name] = m.Doc
		}
	}
	return out
}
