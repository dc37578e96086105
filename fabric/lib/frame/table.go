package frame

import (
	"context"
	"fmt"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"io"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Frame is an immutable in-memory table: a schema and record batches.
// Operations return new frames sharing the data where they can. Release
// frees a frame's memory early; the garbage collector frees it otherwise.
type Frame struct {
	schema *arrow.Schema
	recs   []arrow.Record
	starts []int // the first row of each batch, then the row count
}

func newFrame(schema *arrow.Schema, recs []arrow.Record) *Frame {
	f := &Frame{schema: schema}
	n := 0
	for _, r := range recs {
		if r.NumRows() == 0 {
			r.Release()
			continue
		}
		f.recs = append(f.recs, r)
		f.starts = append(f.starts, n)
		n += int(r.NumRows())
	}
	f.starts = append(f.starts, n)
	return f
}

// Read loads a whole file into a Frame (f may be Auto).
func Read(path string, f Format) (*Frame, error) {
	src, err := Open(path, f)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return ReadFrom(src)
}

// ReadFrom loads every batch of src into a Frame. It does not close src.
func ReadFrom(src Source) (*Frame, error) {
	var recs []arrow.Record
	for {
		rec, err := src.Next()
		if err == io.EOF {
			return newFrame(src.Schema(), recs), nil
		}
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
			return nil, err
		}
		recs = append(recs, rec)
	}
}

// FromRows builds a Frame from rows of Go values (nil, bool, int, int64,
// float64, string, time.Time), one per column. A column is int64 when all
// its values are integers, float64 when they are numbers, bool, a UTC
// timestamp for times, and string otherwise (other values are formatted).
// nil is null; a short row is padded with nulls.
func FromRows(columns []string, rows [][]any) (*Frame, error) {
	seen := map[string]bool{}
	for _, c := range columns {
		if seen[c] {
			return nil, fmt.Errorf("column %q appears twice", c)
		}
		seen[c] = true
	}
	padded := make([][]any, len(rows))
	for i, row := range rows {
		if len(row) > len(columns) {
			return nil, fmt.Errorf("row %d has %d values for %d columns", i, len(row), len(columns))
		}
		if len(row) < len(columns) {
			row = append(append(make([]any, 0, len(columns)), row...), make([]any, len(columns)-len(row))...)
		}
		padded[i] = row
	}
	cols := inferValues(columns, padded, false)
	schema := valueSchema(cols)
	rec, verr := buildValues(schema, cols, padded)
	if verr != nil {
		return nil, fmt.Errorf("row %d, column %q: cannot use %s", verr.row, columns[verr.col], describeValue(verr.value))
	}
	return newFrame(schema, []arrow.Record{rec}), nil
}

// Write writes the frame to path in format (Auto tells from the extension,
// which also tells the compression), atomically.
func (f *Frame) Write(path string, format Format) error {
	tf, tc, err := Detect(path, format)
	if err != nil {
		return err
	}
	if tf == ORC {
		return fmt.Errorf("%s: %w", path, errORC)
	}
	return safefile.Write(path, func(w io.Writer) error { return f.WriteTo(w, tf, tc) })
}

// WriteTo writes the frame to w in format (not Auto) with compression c.
func (f *Frame) WriteTo(w io.Writer, format Format, c Compression) error {
	_, err := copyTo(w, format, c, f.Source())
	return err
}

// frameSource streams a frame's batches.
type frameSource struct {
	f *Frame
	i int
}

// Source streams the frame's batches, to write them into a Sink.
func (f *Frame) Source() Source { return &frameSource{f: f} }

func (s *frameSource) Schema() *arrow.Schema { return s.f.schema }

func (s *frameSource) Next() (arrow.Record, error) {
	if s.i >= len(s.f.recs) {
		return nil, io.EOF
	}
	rec := s.f.recs[s.i]
	s.i++
	rec.Retain()
	return rec, nil
}

func (s *frameSource) Close() error { return nil }

// Schema returns the frame's Arrow schema.
func (f *Frame) Schema() *arrow.Schema { return f.schema }

// NumRows returns the number of rows.
func (f *Frame) NumRows() int { return f.starts[len(f.starts)-1] }

// NumCols returns the number of columns.
func (f *Frame) NumCols() int { return f.schema.NumFields() }

// Columns returns the column names in order.
func (f *Frame) Columns() []string {
	out := make([]string, f.schema.NumFields())
	for i, fd := range f.schema.Fields() {
		out[i] = fd.Name
	}
	return out
}

// DTypes returns the pandas dtype of each column, in order.
func (f *Frame) DTypes() []DType { return DTypes(f.schema) }

// MemBytes returns the in-memory size of the frame's data.
func (f *Frame) MemBytes() int64 {
	var n int64
	for _, r := range f.recs {
		n += recordBytes(r)
	}
	return n
}

// MemSizeMB returns MemBytes in MiB rounded to 6 decimal places.
func (f *Frame) MemSizeMB() float64 { return mib(f.MemBytes()) }

// Release frees the frame's batches; the frame must not be used after.
func (f *Frame) Release() {
	for _, r := range f.recs {
		r.Release()
	}
	f.recs = nil
	f.starts = []int{0}
}

// slice returns rows [from, to).
func (f *Frame) slice(from, to int) *Frame {
	from, to = max(from, 0), min(to, f.NumRows())
	var recs []arrow.Record
	for i, r := range f.recs {
		lo, hi := max(from, f.starts[i]), min(to, f.starts[i+1])
		if lo < hi {
			recs = append(recs, r.NewSlice(int64(lo-f.starts[i]), int64(hi-f.starts[i])))
		}
	}
	return newFrame(f.schema, recs)
}

// Head returns the first n rows.
func (f *Frame) Head(n int) *Frame { return f.slice(0, max(n, 0)) }

// Tail returns the last n rows.
func (f *Frame) Tail(n int) *Frame { return f.slice(f.NumRows()-max(n, 0), f.NumRows()) }

// index returns the position of column name, or an error listing the
// columns.
func (f *Frame) index(name string) (int, error) {
	if idx := f.schema.FieldIndices(name); len(idx) > 0 {
		return idx[0], nil
	}
	return -1, fmt.Errorf("no column %q (columns: %s)", name, strings.Join(f.Columns(), ", "))
}

// Select returns the named columns, in the order given.
func (f *Frame) Select(cols []string) (*Frame, error) {
	idx := make([]int, len(cols))
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		j, err := f.index(c)
		if err != nil {
			return nil, err
		}
		idx[i], fields[i] = j, f.schema.Field(j)
	}
	schema := arrow.NewSchema(fields, nil)
	recs := make([]arrow.Record, len(f.recs))
	for k, r := range f.recs {
		arrs := make([]arrow.Array, len(idx))
		for i, j := range idx {
			arrs[i] = r.Column(j)
		}
		recs[k] = array.NewRecord(schema, arrs, r.NumRows())
	}
	return newFrame(schema, recs), nil
}

// Sort returns the rows ordered by the columns by (the first first),
// ascending or, with desc, descending. The sort is stable and puts nulls
// last.
func (f *Frame) Sort(by []string, desc bool) (*Frame, error) {
	if len(by) == 0 {
		return nil, fmt.Errorf("sort needs at least one column")
	}
	keys := make([]compute.SortKey, len(by))
	for i, c := range by {
		j, err := f.index(c)
		if err != nil {
			return nil, err
		}
		keys[i] = compute.DefaultSortKey()
		keys[i].ColumnIndex = j
		if desc {
			keys[i].Order = compute.SortOrderDescending
		}
	}
	if f.NumRows() == 0 {
		return f.slice(0, 0), nil
	}
	tbl := array.NewTableFromRecords(f.schema, f.recs)
	defer tbl.Release()
	idx, err := compute.SortIndicesTable(context.Background(), tbl, keys)
	if err != nil {
		return nil, fmt.Errorf("sort: %v", err)
	}
	defer idx.Release()
	return f.take(tbl, idx)
}

// Take returns the rows at indices, in that order. Indices out of range
// are skipped.
func (f *Frame) Take(indices []int) *Frame {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	n := f.NumRows()
	for _, i := range indices {
		if i >= 0 && i < n {
			b.Append(int64(i))
		}
	}
	idx := b.NewArray()
	defer idx.Release()
	if idx.Len() == 0 || len(f.recs) == 0 {
		return f.slice(0, 0)
	}
	tbl := array.NewTableFromRecords(f.schema, f.recs)
	defer tbl.Release()
	out, err := f.take(tbl, idx)
	if err != nil {
		// Take cannot fail on valid indices of supported types; fall back
		// to gathering the rows one by one.
		return f.gather(indices)
	}
	return out
}

// take gathers the rows at idx of tbl with Arrow's take kernel.
func (f *Frame) take(tbl arrow.Table, idx arrow.Array) (*Frame, error) {
	ctx := context.Background()
	cols := make([]arrow.Column, tbl.NumCols())
	for i := range cols {
		col := tbl.Column(i)
		out, err := compute.Take(ctx, *compute.DefaultTakeOptions(), &compute.ChunkedDatum{Value: col.Data()}, &compute.ArrayDatum{Value: idx.Data()})
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
		var chunked *arrow.Chunked
		switch d := out.(type) {
		case *compute.ChunkedDatum:
			chunked = d.Value
			chunked.Retain()
		case *compute.ArrayDatum:
			a := d.MakeArray()
			chunked = arrow.NewChunked(a.DataType(), []arrow.Array{a})
			a.Release()
		}
		out.Release()
		cols[i] = *arrow.NewColumn(f.schema.Field(i), chunked)
		chunked.Release()
	}
	t := array.NewTable(f.schema, cols, int64(idx.Len()))
	for i := range cols {
		cols[i].Release()
	}
	defer t.Release()
	tr := array.NewTableReader(t, DefaultBatchSize)
	defer tr.Release()
	var recs []arrow.Record
	for tr.Next() {
		r := tr.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	return newFrame(f.schema, recs), nil
}

// gather builds the rows at indices from Go values (a slow fallback).
func (f *Frame) gather(indices []int) *Frame {
	rows := make([][]any, 0, len(indices))
	for _, i := range indices {
		if i >= 0 && i < f.NumRows() {
			rows = append(rows, f.Row(i))
		}
	}
	g, err := FromRows(f.Columns(), rows)
	if err != nil {
		return f.slice(0, 0)
	}
	return g
}

// locate returns the batch holding row i and the row within it.
func (f *Frame) locate(i int) (arrow.Record, int) {
	k := sort.Search(len(f.recs), func(k int) bool { return f.starts[k+1] > i })
	return f.recs[k], i - f.starts[k]
}

// Row returns row i as Go values: nil, bool, int64, uint64, float64,
// string or time.Time (UTC). It panics when i is out of range.
func (f *Frame) Row(i int) []any {
	if i < 0 || i >= f.NumRows() {
		panic(fmt.Sprintf("frame: row %d out of range [0, %d)", i, f.NumRows()))
	}
	rec, j := f.locate(i)
	out := make([]any, rec.NumCols())
	for c, col := range rec.Columns() {
		out[c] = ValueAt(col, j)
	}
	return out
}

// Column returns the values of a column as Go values (see Row).
func (f *Frame) Column(name string) ([]any, error) {
	c, err := f.index(name)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, f.NumRows())
	for _, r := range f.recs {
		col := r.Column(c)
		for j := 0; j < col.Len(); j++ {
			out = append(out, ValueAt(col, j))
		}
	}
	return out, nil
}
