// Package lazy plans reads of tables: a Table knows where its rows come
// from (an Input: a local file, a stored dataset, a job's output) and the
// operations asked of it (filter, select, head), and reads only when a
// result is needed. Reading pushes what it can into the input (the columns
// the plan needs, and the filters, as row-group predicates over Parquet
// statistics) and runs the rest as a stream of record batches, so that a
// filter over a table larger than memory holds a few batches at a time.
package lazy

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// Meta is what an input knows without reading its rows.
type Meta struct {
	// Columns are the input's columns and their types (nil when only
	// reading tells).
	Columns []frame.DType
	// Rows is the number of rows, or -1 when only reading tells.
	Rows int64
}

// Input is where a table's rows come from.
type Input interface {
	// Meta returns what the input knows without reading rows.
	Meta(ctx context.Context) (Meta, error)
	// Open opens the rows. An input that can pushes scan into its
	// storage; one that cannot ignores it (the plan applies every
	// operation itself either way).
	Open(ctx context.Context, scan frame.Scan) (frame.Source, error)
}

// Predicate is a row filter a Table runs, and pushes into its input where
// it can (a *cfxarrow.Query is one).
type Predicate interface {
	// Columns returns the columns the condition reads.
	Columns() []string
	// Outputs returns the columns the filter keeps, by their names in
	// its input and in its output; nil, nil keeps every column.
	Outputs() (from, to []string)
	// KeepRowGroup reports whether a row of a row group with these
	// statistics may match.
	KeepRowGroup(frame.RowGroupStats) bool
	// FilterSource returns the rows of src that match; it closes src.
	FilterSource(src frame.Source) (frame.Source, error)
	// Selector returns the condition as a row selection over batches
	// that have its Columns (what a Parquet scan's Where asks).
	Selector() func(arrow.Record) (sel []int32, all bool, err error)
}

// op is one operation of a plan.
type op struct {
	filter Predicate
	cols   []string // select
	head   int      // head (with filter and cols unset)
}

// Table is an input and the operations asked of it. It is immutable:
// every operation returns a new Table.
type Table struct {
	in  Input
	ops []op
}

// New returns the table of an input, with no operation yet.
func New(in Input) *Table { return &Table{in: in} }

func (t *Table) with(o op) *Table {
	return &Table{in: t.in, ops: append(slices.Clip(t.ops), o)}
}

// Filter keeps the rows q matches (and projects them by q's GET).
func (t *Table) Filter(q Predicate) *Table { return t.with(op{filter: q}) }

// Select keeps the named columns, in that order.
func (t *Table) Select(cols []string) *Table { return t.with(op{cols: slices.Clone(cols)}) }

// Head keeps the first n rows.
func (t *Table) Head(n int) *Table { return t.with(op{head: max(n, 0)}) }

// Plain reports whether the table is its input with no operation.
func (t *Table) Plain() bool { return len(t.ops) == 0 }

// Input returns the table's input.
func (t *Table) Input() Input { return t.in }

// NumRows returns the number of rows when metadata tells it without a
// read (no filter, or a head of a known count), and -1 otherwise.
func (t *Table) NumRows(ctx context.Context) (int64, error) {
	m, err := t.in.Meta(ctx)
	if err != nil {
		return -1, err
	}
	n := m.Rows
	for _, o := range t.ops {
		switch {
		case o.filter != nil:
			n = -1
		case o.cols == nil && n >= 0:
			n = min(n, int64(o.head))
		}
	}
	return n, nil
}

// Columns returns the table's columns and their types, from metadata
// when the input has it (nil, nil when only a read tells).
func (t *Table) Columns(ctx context.Context) ([]frame.DType, error) {
	m, err := t.in.Meta(ctx)
	if err != nil || m.Columns == nil {
		return nil, err
	}
	cols := m.Columns
	for _, o := range t.ops {
		switch {
		case o.filter != nil:
			for _, c := range o.filter.Columns() {
				if _, ok := find(cols, c); !ok {
					return nil, fmt.Errorf("unknown column '%s'", c)
				}
			}
			if from, to := o.filter.Outputs(); from != nil {
				out := make([]frame.DType, len(from))
				for i, c := range from {
					d, ok := find(cols, c)
					if !ok {
						return nil, fmt.Errorf("unknown column '%s'", c)
					}
					d.Column = to[i]
					out[i] = d
				}
				cols = out
			}
		case o.cols != nil:
			out := make([]frame.DType, len(o.cols))
			for i, c := range o.cols {
				d, ok := find(cols, c)
				if !ok {
					names := make([]string, len(cols))
					for j, d := range cols {
						names[j] = d.Column
					}
					return nil, fmt.Errorf("no column %q (columns: %s)", c, strings.Join(names, ", "))
				}
				out[i] = d
			}
			cols = out
		}
	}
	return cols, nil
}

func find(cols []frame.DType, name string) (frame.DType, bool) {
	for _, d := range cols {
		if d.Column == name {
			return d, true
		}
	}
	return frame.DType{}, false
}

// Check verifies the operations against the input's columns when its
// metadata tells them: an unknown column fails here, before any read.
func (t *Table) Check(ctx context.Context) error {
	_, err := t.Columns(ctx)
	return err
}

// scan computes what the input may be asked: the columns the plan
// reads, and the filters that apply to the input's own rows (those before
// any head or renaming GET) as a row-group predicate.
func (t *Table) scan() frame.Scan {
	var need []string // nil: every column
	for i := len(t.ops) - 1; i >= 0; i-- {
		o := t.ops[i]
		switch {
		case o.filter != nil:
			if from, _ := o.filter.Outputs(); from != nil {
				need = nil
				for _, c := range from {
					need = appendNew(need, c)
				}
			}
			if need != nil {
				for _, c := range o.filter.Columns() {
					need = appendNew(need, c)
				}
			}
		case o.cols != nil:
			need = slices.Clone(o.cols)
		}
	}
	var keep []Predicate
	for _, o := range t.ops {
		if o.filter == nil && o.cols == nil {
			break // a head: later filters see fewer rows than the input's
		}
		if o.filter != nil {
			keep = append(keep, o.filter)
			if from, to := o.filter.Outputs(); !slices.Equal(from, to) {
				break // a GET renames: later filters name other columns
			}
		}
	}
	s := frame.Scan{Columns: need}
	if len(t.ops) > 0 && t.ops[0].filter != nil {
		// The first filter sees the input's rows: the input may run it
		// while it reads, and decode the other columns of matching rows
		// only.
		s.Where, s.WhereColumns = t.ops[0].filter.Selector(), t.ops[0].filter.Columns()
	}
	if len(keep) > 0 {
		s.Keep = func(rg frame.RowGroupStats) bool {
			for _, q := range keep {
				if !q.KeepRowGroup(rg) {
					return false
				}
			}
			return true
		}
	}
	return s
}

func appendNew(s []string, c string) []string {
	if slices.Contains(s, c) {
		return s
	}
	return append(s, c)
}

// Open runs the plan as a stream of batches; the caller closes it.
func (t *Table) Open(ctx context.Context) (frame.Source, error) {
	if err := t.Check(ctx); err != nil {
		return nil, err
	}
	scan := t.scan()
	src, err := t.in.Open(ctx, scan)
	if err != nil {
		return nil, err
	}
	pushed := scan.Where != nil && frame.Filtered(src)
	src = &ctxSource{Source: src, ctx: ctx}
	for i, o := range t.ops {
		var next frame.Source
		switch {
		case o.filter != nil && i == 0 && pushed:
			// The input filtered; what is left is GET's projection.
			from, to := o.filter.Outputs()
			next, err = newProjectSource(src, from, to)
		case o.filter != nil:
			next, err = o.filter.FilterSource(src)
		case o.cols != nil:
			next, err = newSelectSource(src, o.cols)
		default:
			next = &headSource{Source: src, left: int64(o.head)}
		}
		if err != nil {
			src.Close()
			return nil, err
		}
		src = next
	}
	return src, nil
}

// Collect reads the table into a frame.
func (t *Table) Collect(ctx context.Context) (*frame.Frame, error) {
	src, err := t.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return frame.ReadFrom(src)
}

// Count returns the number of rows, from metadata when it tells, by a
// streamed read otherwise (that holds no more than a few batches).
func (t *Table) Count(ctx context.Context) (int64, error) {
	if n, err := t.NumRows(ctx); err != nil || n >= 0 {
		return n, err
	}
	src, err := t.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	var n int64
	for {
		rec, err := src.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += rec.NumRows()
		rec.Release()
	}
}

// ctxSource stops a read when its context ends.
type ctxSource struct {
	frame.Source
	ctx context.Context
}

func (s *ctxSource) Next() (arrow.Record, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	return s.Source.Next()
}

// selectSource keeps some columns of each batch, in a given order.
type selectSource struct {
	frame.Source
	idx    []int
	schema *arrow.Schema
}

func newSelectSource(src frame.Source, cols []string) (frame.Source, error) {
	return newProjectSource(src, cols, cols)
}

// newProjectSource keeps the columns from of each batch, named to (from
// nil: src itself).
func newProjectSource(src frame.Source, from, to []string) (frame.Source, error) {
	if from == nil {
		return src, nil
	}
	cols := from
	in := src.Schema()
	out, err := selectSchema(in, cols)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(from, to) {
		fs := out.Fields()
		for i := range fs {
			fs[i].Name = to[i]
		}
		out = arrow.NewSchema(fs, nil)
	}
	idx := make([]int, len(cols))
	for i, c := range cols {
		idx[i] = in.FieldIndices(c)[0]
	}
	return &selectSource{Source: src, idx: idx, schema: out}, nil
}

func selectSchema(in *arrow.Schema, cols []string) (*arrow.Schema, error) {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		j := in.FieldIndices(c)
		if len(j) == 0 {
			return nil, fmt.Errorf("unknown column '%s'", c)
		}
		fs[i] = in.Field(j[0])
	}
	return arrow.NewSchema(fs, nil), nil
}

func (s *selectSource) Schema() *arrow.Schema { return s.schema }

func (s *selectSource) Next() (arrow.Record, error) {
	rec, err := s.Source.Next()
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	arrs := make([]arrow.Array, len(s.idx))
	for i, j := range s.idx {
		arrs[i] = rec.Column(j)
	}
	return array.NewRecord(s.schema, arrs, rec.NumRows()), nil
}

// headSource returns the first rows of a source and stops reading it
// there.
type headSource struct {
	frame.Source
	left int64
}

func (s *headSource) Next() (arrow.Record, error) {
	if s.left <= 0 {
		return nil, io.EOF
	}
	rec, err := s.Source.Next()
	if err != nil {
		return nil, err
	}
	if n := rec.NumRows(); n > s.left {
		cut := rec.NewSlice(0, s.left)
		rec.Release()
		rec = cut
	}
	s.left -= rec.NumRows()
	return rec, nil
}
