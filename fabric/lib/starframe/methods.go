package starframe

import (
	"fmt"

	"github.com/fabricops/fabric/fabric/lib/cfxql/cfxarrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"go.starlark.net/starlark"
)

// methods are the methods every frame has, with their docs.
var methods = map[string]Method{
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
	"with_column": {`with_column(name, fn_or_values)

Returns the frame with a column name computed for each row: fn(row) (row
is a dict of column to value), or taken from a list of one value a row. A
column of that name is replaced in place; a new one comes last. Its type
is inferred from the values (int64, float64, bool, datetime64[ns] or
object).`, (*Frame).withColumn},
	"collect": {`collect()

Reads a lazy frame's rows into memory and returns them as a frame (a
frame already in memory returns itself). A lazy frame reads its input
each time a result is asked of it; collect() once to reuse the rows.`, (*Frame).collect},
}

func (v *Frame) head(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n := 5
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n?", &n); err != nil {
		return nil, err
	}
	if _, lz := v.State(); lz != nil {
		return v.kit.NewLazy(v.kit.context(thread), lz.Head(n)), nil
	}
	f, err := v.Read(thread, b)
	if err != nil {
		return nil, err
	}
	return v.kit.New(f.Head(n)), nil
}

func (v *Frame) tail(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n := 5
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n?", &n); err != nil {
		return nil, err
	}
	f, err := v.Read(thread, b)
	if err != nil {
		return nil, err
	}
	return v.kit.New(f.Tail(n)), nil
}

func (v *Frame) selectCols(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cols starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "columns", &cols); err != nil {
		return nil, err
	}
	names, err := ColumnNames(cols)
	if err != nil {
		return nil, v.kit.fail(b.Name(), err)
	}
	return v.apply(thread, b, func(lz *lazy.Table) *lazy.Table { return lz.Select(names) }, func(f *frame.Frame) (*frame.Frame, error) { return f.Select(names) })
}

func (v *Frame) sortBy(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var by starlark.Value
	desc := false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "by", &by, "desc?", &desc); err != nil {
		return nil, err
	}
	names, err := ColumnNames(by)
	if err != nil {
		return nil, v.kit.fail(b.Name(), err)
	}
	return v.apply(thread, b, nil, func(f *frame.Frame) (*frame.Frame, error) { return f.Sort(names, desc) })
}

func (v *Frame) rowsList(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	f, err := v.Read(thread, b)
	if err != nil {
		return nil, err
	}
	cols := f.Columns()
	rows := make([]starlark.Value, f.NumRows())
	for i := range rows {
		rows[i] = RowDict(cols, f.Row(i))
	}
	return starlark.NewList(rows), nil
}

func (v *Frame) column(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	f, err := v.Read(thread, b)
	if err != nil {
		return nil, err
	}
	vals, err := f.Column(name)
	if err != nil {
		return nil, v.kit.fail(b.Name(), err)
	}
	out := make([]starlark.Value, len(vals))
	for i, x := range vals {
		out[i] = starvalue.Scalar(x)
	}
	return starlark.NewList(out), nil
}

func (v *Frame) collect(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	f, err := v.Read(thread, b)
	if err != nil {
		return nil, err
	}
	return v.kit.New(f), nil
}

func (v *Frame) filter(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn); err != nil {
		return nil, err
	}
	if expr, ok := fn.(starlark.String); ok {
		q, err := cfxarrow.Parse(string(expr))
		if err != nil {
			return nil, v.kit.fail(b.Name(), err)
		}
		return v.apply(thread, b, func(lz *lazy.Table) *lazy.Table { return lz.Filter(q) }, q.Filter)
	}
	if _, ok := fn.(starlark.Callable); !ok {
		return nil, fmt.Errorf("%s: want a function of the row, not %s", b.Name(), fn.Type())
	}
	f, err := v.Read(thread, b)
	if err != nil {
		return nil, err
	}
	var keep []int
	err = eachRow(thread, b, f, fn, func(i int, res starlark.Value) error {
		if res.Truth() {
			keep = append(keep, i)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v.kit.New(f.Take(keep)), nil
}

func (v *Frame) withColumn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var fn starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "fn_or_values", &fn); err != nil {
		return nil, err
	}
	f, err := v.Read(thread, b)
	if err != nil {
		return nil, err
	}
	vals := make([]any, f.NumRows())
	switch x := fn.(type) {
	case starlark.Callable:
		err = eachRow(thread, b, f, x, func(i int, res starlark.Value) (err error) {
			if vals[i], err = starvalue.FromStarlark(res); err != nil {
				return fmt.Errorf("%s: row %d: %v", b.Name(), i, err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	case starlark.Indexable:
		if _, isStr := x.(starlark.String); isStr {
			return nil, fmt.Errorf("%s: want a function of the row or a list of values, not a string", b.Name())
		}
		if x.Len() != len(vals) {
			return nil, fmt.Errorf("%s: %d values for %d rows", b.Name(), x.Len(), len(vals))
		}
		for i := range vals {
			if vals[i], err = starvalue.FromStarlark(x.Index(i)); err != nil {
				return nil, fmt.Errorf("%s: value %d: %v", b.Name(), i, err)
			}
		}
	default:
		return nil, fmt.Errorf("%s: want a function of the row or a list of values, not %s", b.Name(), fn.Type())
	}
	instantColumn(vals)
	out, err := f.WithColumn(name, vals)
	if err != nil {
		return nil, v.kit.fail(b.Name(), err)
	}
	return v.kit.New(out), nil
}

// apply runs an operation on the frame: on its plan when it is lazy and
// the operation has a plan form (checked at once, read later), else on
// its rows.
func (v *Frame) apply(thread *starlark.Thread, b *starlark.Builtin, onPlan func(*lazy.Table) *lazy.Table, onRows func(*frame.Frame) (*frame.Frame, error)) (starlark.Value, error) {
	if _, lz := v.State(); lz != nil && onPlan != nil {
		next := onPlan(lz)
		if err := next.Check(v.kit.context(thread)); err != nil {
			return nil, v.kit.fail(b.Name(), err)
		}
		return v.kit.NewLazy(v.kit.context(thread), next), nil
	}
	f, err := v.Read(thread, b)
	if err != nil {
		return nil, err
	}
	out, err := onRows(f)
	if err != nil {
		return nil, v.kit.fail(b.Name(), err)
	}
	return v.kit.New(out), nil
}

// eachRow calls fn with each row of f as a dict, in order, and use with
// the row's index and fn's result; the first error stops it.
func eachRow(thread *starlark.Thread, b *starlark.Builtin, f *frame.Frame, fn starlark.Value, use func(i int, res starlark.Value) error) error {
	cols := f.Columns()
	for i := 0; i < f.NumRows(); i++ {
		res, err := starlark.Call(thread, fn, starlark.Tuple{RowDict(cols, f.Row(i))}, nil)
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", b.Name(), i, err)
		}
		if err := use(i, res); err != nil {
			return err
		}
	}
	return nil
}
