package frame

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// selectScan reads a Parquet file's row groups with a row filter, late
// materialised: for each row group it decodes the filter's columns, asks
// the filter which rows match, and decodes the other columns for those
// rows only, skipping the runs of rows between them. Row groups are read
// in parallel (one worker per CPU, each on its own row group) and come
// out in order; a few row groups are in flight at a time, whatever the
// size of the file.
type selectScan struct {
	name        string
	pf          *file.Reader
	fr          *pqarrow.FileReader // for the columns decoded through Arrow's reader
	schema      *arrow.Schema       // the columns returned
	out         []scanColumn        // one per field of schema
	where       []scanColumn        // the filter's columns, in whereSchema's order
	whereSchema *arrow.Schema
	filter      func(arrow.Record) ([]int32, bool, error)

	results chan chan groupResult // in row-group order
	done    chan struct{}
	err     error
}

// scanColumn is how one column is decoded.
type scanColumn struct {
	field  arrow.Field
	leaves []int // the Parquet leaf columns under the field
	kind   decodeKind
	where  int // index in the filter's batch, or -1
}

// decodeKind says how a column is decoded: directly from the column
// chunk (a flat column whose Parquet values are its Arrow values), or
// through Arrow's Parquet reader (the rest: nested, dictionary, decimal,
// converted units, ...).
type decodeKind int

const (
	viaArrow decodeKind = iota
	directBool
	directInt32
	directInt64
	directFloat32
	directFloat64
	directBytes
)

type groupResult struct {
	rec arrow.Record // nil: no row matched
	err error
}

// errScanClosed is what a row group still queued when the scan closes
// reports (to no one).
var errScanClosed = errors.New("source is closed")

// newSelectScan starts reading groups of pf through fr. cols are the
// fields returned (nil: all), whereCols the fields filter reads.
func newSelectScan(name string, pf *file.Reader, fr *pqarrow.FileReader, cols, whereCols []string, groups []int,
	filter func(arrow.Record) ([]int32, bool, error)) (*selectScan, error) {
	fields := fr.Manifest.Fields
	byName := map[string]int{}
	for i, f := range fields {
		byName[f.Field.Name] = i
	}
	s := &selectScan{name: name, pf: pf, fr: fr, filter: filter,
		done: make(chan struct{})}
	var whereFields []arrow.Field
	whereAt := map[string]int{}
	for _, c := range whereCols {
		i, ok := byName[c]
		if !ok {
			return nil, fmt.Errorf("unknown column '%s'", c)
		}
		if _, dup := whereAt[c]; dup {
			continue
		}
		whereAt[c] = len(s.where)
		sc := planColumn(pf, fields[i])
		sc.where = -1
		s.where = append(s.where, sc)
		whereFields = append(whereFields, sc.field)
	}
	s.whereSchema = arrow.NewSchema(whereFields, nil)
	var outFields []arrow.Field
	for i, f := range fields {
		if cols != nil && !contains(cols, f.Field.Name) {
			continue
		}
		sc := planColumn(pf, fields[i])
		sc.where = -1
		if w, ok := whereAt[f.Field.Name]; ok {
			sc.where = w
		}
		s.out = append(s.out, sc)
		outFields = append(outFields, sc.field)
	}
	s.schema = arrow.NewSchema(outFields, nil)
	s.results = make(chan chan groupResult, max(1, runtime.GOMAXPROCS(0)))
	go s.run(groups)
	return s, nil
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// planColumn chooses how a top-level field is decoded.
func planColumn(pf *file.Reader, f pqarrow.SchemaField) scanColumn {
	sc := scanColumn{field: *f.Field, leaves: leafIndices(f, nil), kind: viaArrow}
	if !f.IsLeaf() {
		return sc
	}
	col := pf.MetaData().Schema.Column(f.ColIndex)
	if col.MaxRepetitionLevel() != 0 || col.MaxDefinitionLevel() > 1 {
		return sc
	}
	pt := col.PhysicalType()
	switch f.Field.Type.ID() {
	case arrow.BOOL:
		if pt == parquet.Types.Boolean {
			sc.kind = directBool
		}
	case arrow.INT32, arrow.DATE32:
		if pt == parquet.Types.Int32 {
			sc.kind = directInt32
		}
	case arrow.INT64:
		if pt == parquet.Types.Int64 {
			sc.kind = directInt64
		}
	case arrow.TIMESTAMP:
		lt, ok := col.LogicalType().(*schema.TimestampLogicalType)
		if pt == parquet.Types.Int64 && ok && sameUnit(lt.TimeUnit(), f.Field.Type.(*arrow.TimestampType).Unit) {
			sc.kind = directInt64
		}
	case arrow.FLOAT32:
		if pt == parquet.Types.Float {
			sc.kind = directFloat32
		}
	case arrow.FLOAT64:
		if pt == parquet.Types.Double {
			sc.kind = directFloat64
		}
	case arrow.STRING, arrow.BINARY:
		if pt == parquet.Types.ByteArray {
			sc.kind = directBytes
		}
	}
	return sc
}

func sameUnit(p schema.TimeUnitType, a arrow.TimeUnit) bool {
	switch p {
	case schema.TimeUnitMillis:
		return a == arrow.Millisecond
	case schema.TimeUnitMicros:
		return a == arrow.Microsecond
	case schema.TimeUnitNanos:
		return a == arrow.Nanosecond
	}
	return false
}

// run reads the row groups, a few at a time, and queues their results in
// order.
func (s *selectScan) run(groups []int) {
	defer close(s.results)
	workers := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for _, g := range groups {
		ch := make(chan groupResult, 1)
		select {
		case s.results <- ch:
		case <-s.done:
			return
		}
		select {
		case workers <- struct{}{}:
		case <-s.done:
			ch <- groupResult{err: errScanClosed}
			return
		}
		go func() {
			defer func() { <-workers }()
			rec, err := s.readGroup(g)
			ch <- groupResult{rec: rec, err: err}
		}()
	}
}

func (s *selectScan) Schema() *arrow.Schema { return s.schema }

func (s *selectScan) Next() (arrow.Record, error) {
	for s.err == nil {
		ch, ok := <-s.results
		if !ok {
			s.err = io.EOF
			break
		}
		r := <-ch
		if r.err != nil {
			s.err = r.err
			break
		}
		if r.rec != nil {
			return r.rec, nil
		}
	}
	return nil, s.err
}

// Close stops the workers, waits for them and releases what they read.
func (s *selectScan) Close() error {
	if s.err == errScanClosed {
		return nil
	}
	close(s.done)
	for ch := range s.results {
		if r := <-ch; r.rec != nil {
			r.rec.Release()
		}
	}
	s.err = errScanClosed
	return s.pf.Close()
}

// readGroup reads the matching rows of row group g; nil when none does.
func (s *selectScan) readGroup(g int) (arrow.Record, error) {
	rg := s.pf.RowGroup(g)
	n := rg.NumRows()
	arrs := make([]arrow.Array, len(s.where))
	release := func(as []arrow.Array) {
		for _, a := range as {
			if a != nil {
				a.Release()
			}
		}
	}
	defer release(arrs)
	for i, c := range s.where {
		a, err := s.readColumn(rg, g, c, n, nil)
		if err != nil {
			return nil, err
		}
		arrs[i] = a
	}
	where := array.NewRecord(s.whereSchema, arrs, n)
	defer where.Release()
	sel, all, err := s.filter(where)
	if err != nil {
		return nil, err
	}
	rows := n
	if !all {
		if len(sel) == 0 {
			return nil, nil
		}
		rows = int64(len(sel))
	}
	out := make([]arrow.Array, len(s.out))
	defer release(out)
	for i, c := range s.out {
		switch {
		case c.where >= 0 && all:
			out[i] = arrs[c.where]
			out[i].Retain()
		case c.where >= 0:
			if out[i], err = Take(arrs[c.where], sel); err != nil {
				return nil, err
			}
		default:
			if all {
				sel = nil
			}
			if out[i], err = s.readColumn(rg, g, c, n, sel); err != nil {
				return nil, err
			}
		}
	}
	return array.NewRecord(s.schema, out, rows), nil
}

// readColumn decodes the rows sel (nil: all n) of a column of a row
// group.
func (s *selectScan) readColumn(rg *file.RowGroupReader, g int, c scanColumn, n int64, sel []int32) (arrow.Array, error) {
	if c.kind == viaArrow {
		return s.readViaArrow(g, c, sel)
	}
	ccr, err := rg.Column(c.leaves[0])
	if err != nil {
		return nil, fmt.Errorf("%s: column '%s': %v", s.name, c.field.Name, err)
	}
	maxDef := ccr.Descriptor().MaxDefinitionLevel()
	var d *array.Data
	switch c.kind {
	case directBool:
		d, err = decodeBools(ccr.(*file.BooleanColumnChunkReader), c.field.Type, n, sel, maxDef)
	case directInt32:
		d, err = decodeFixed(ccr.(*file.Int32ColumnChunkReader), c.field.Type, n, sel, maxDef, arrow.Int32Traits.CastToBytes)
	case directInt64:
		d, err = decodeFixed(ccr.(*file.Int64ColumnChunkReader), c.field.Type, n, sel, maxDef, arrow.Int64Traits.CastToBytes)
	case directFloat32:
		d, err = decodeFixed(ccr.(*file.Float32ColumnChunkReader), c.field.Type, n, sel, maxDef, arrow.Float32Traits.CastToBytes)
	case directFloat64:
		d, err = decodeFixed(ccr.(*file.Float64ColumnChunkReader), c.field.Type, n, sel, maxDef, arrow.Float64Traits.CastToBytes)
	case directBytes:
		// The chunk's plain size (values and their lengths) is a fair
		// guess of the text's size, so the buffer is sized once.
		size := int64(0)
		if md, err := rg.MetaData().ColumnChunk(c.leaves[0]); err == nil && n > 0 {
			size = md.TotalUncompressedSize() * int64(outRows(n, sel)) / n
		}
		d, err = decodeBytes(ccr.(*file.ByteArrayColumnChunkReader), c.field.Type, n, sel, maxDef, size)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: column '%s': %v", s.name, c.field.Name, err)
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// readViaArrow decodes a column of row group g with Arrow's reader, then
// takes the rows sel.
func (s *selectScan) readViaArrow(g int, c scanColumn, sel []int32) (arrow.Array, error) {
	rr, err := s.fr.GetRecordReader(context.Background(), c.leaves, []int{g})
	if err != nil {
		return nil, fmt.Errorf("%s: column '%s': %v", s.name, c.field.Name, err)
	}
	defer rr.Release()
	var chunks []arrow.Array
	defer func() {
		for _, a := range chunks {
			a.Release()
		}
	}()
	for rr.Next() {
		a := rr.RecordBatch().Column(0)
		a.Retain()
		chunks = append(chunks, a)
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: column '%s': %v", s.name, c.field.Name, err)
	}
	var whole arrow.Array
	switch len(chunks) {
	case 0:
		whole = array.MakeArrayOfNull(memory.DefaultAllocator, c.field.Type, 0)
	case 1:
		whole = chunks[0]
		whole.Retain()
	default:
		if whole, err = array.Concatenate(chunks, memory.DefaultAllocator); err != nil {
			return nil, fmt.Errorf("%s: column '%s': %v", s.name, c.field.Name, err)
		}
	}
	if sel == nil {
		return whole, nil
	}
	defer whole.Release()
	return Take(whole, sel)
}

// decodeChunk is the number of values decoded at a time; skipRun is the
// shortest run of unselected rows skipped rather than decoded.
const (
	decodeChunk = 4096
	skipRun     = 1024
)

// levelReader is what a typed column chunk reader offers.
type levelReader[T any] interface {
	ReadBatchInPage(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
	Skip(n int64) (int64, error)
}

// walk reads the rows sel (nil: all n) of a flat column: for each row
// read it calls keep(out, vi, valid), where out is the row's position in
// the result and vi the index of its value in vals (meaningful when
// valid). The values of one call stay valid until the next read.
func walk[T any](r levelReader[T], n int64, sel []int32, maxDef int16, keep func(vals []T, out, vi int, valid bool)) error {
	vals := make([]T, decodeChunk)
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, decodeChunk)
	}
	row, k := int64(0), 0
	for row < n {
		if sel != nil {
			if k == len(sel) {
				return nil
			}
			if gap := int64(sel[k]) - row; gap >= skipRun {
				if _, err := r.Skip(gap); err != nil {
					return err
				}
				row += gap
				continue
			}
		}
		want := min(int64(decodeChunk), n-row)
		if sel != nil {
			// Stop at the next long gap, so it can be skipped.
			last := k
			for last+1 < len(sel) && int64(sel[last+1])-int64(sel[last]) < skipRun && int64(sel[last+1])-row < want {
				last++
			}
			want = min(want, int64(sel[last])-row+1)
		}
		lv, _, err := r.ReadBatchInPage(want, vals, defs, nil)
		if err != nil {
			return err
		}
		if lv == 0 {
			return fmt.Errorf("%d rows where the row group has %d", row, n)
		}
		vi := 0
		for li := range int(lv) {
			valid := maxDef == 0 || defs[li] == maxDef
			if sel == nil {
				keep(vals, int(row)+li, vi, valid)
			} else if k < len(sel) && int64(sel[k]) == row+int64(li) {
				keep(vals, k, vi, valid)
				k++
			}
			if valid {
				vi++
			}
		}
		row += lv
	}
	if sel != nil && k < len(sel) {
		return fmt.Errorf("%d rows where the row group has %d", row, n)
	}
	return nil
}

// validity is a validity bitmap being built.
type validity struct {
	bits  []byte
	nulls int
}

func newValidity(rows int, nullable bool) *validity {
	if !nullable {
		return nil
	}
	return &validity{bits: make([]byte, (rows+7)/8)}
}

func (v *validity) set(i int, valid bool) {
	if v == nil {
		return
	}
	if valid {
		v.bits[i>>3] |= 1 << (i & 7)
	} else {
		v.nulls++
	}
}

// buffer returns the bitmap (nil when no row is null) and the null count.
func (v *validity) buffer() (*memory.Buffer, int) {
	if v == nil || v.nulls == 0 {
		return nil, 0
	}
	return memory.NewBufferBytes(v.bits), v.nulls
}

func outRows(n int64, sel []int32) int {
	if sel != nil {
		return len(sel)
	}
	return int(n)
}

func decodeFixed[T any](r levelReader[T], t arrow.DataType, n int64, sel []int32, maxDef int16, toBytes func([]T) []byte) (*array.Data, error) {
	rows := outRows(n, sel)
	out := make([]T, rows)
	v := newValidity(rows, maxDef > 0)
	err := walk(r, n, sel, maxDef, func(vals []T, o, vi int, valid bool) {
		if valid {
			out[o] = vals[vi]
		}
		v.set(o, valid)
	})
	if err != nil {
		return nil, err
	}
	bm, nulls := v.buffer()
	return array.NewData(t, rows, []*memory.Buffer{bm, memory.NewBufferBytes(toBytes(out))}, nil, nulls, 0), nil
}

func decodeBools(r *file.BooleanColumnChunkReader, t arrow.DataType, n int64, sel []int32, maxDef int16) (*array.Data, error) {
	rows := outRows(n, sel)
	out := make([]byte, (rows+7)/8)
	v := newValidity(rows, maxDef > 0)
	err := walk(r, n, sel, maxDef, func(vals []bool, o, vi int, valid bool) {
		if valid && vals[vi] {
			out[o>>3] |= 1 << (o & 7)
		}
		v.set(o, valid)
	})
	if err != nil {
		return nil, err
	}
	bm, nulls := v.buffer()
	return array.NewData(t, rows, []*memory.Buffer{bm, memory.NewBufferBytes(out)}, nil, nulls, 0), nil
}

// decodeBytes decodes strings or binaries (size: a guess of their bytes);
// the values a read returns point into the page, so each is copied as it
// is kept.
func decodeBytes(r *file.ByteArrayColumnChunkReader, t arrow.DataType, n int64, sel []int32, maxDef int16, size int64) (*array.Data, error) {
	rows := outRows(n, sel)
	offs := make([]int32, rows+1)
	data := make([]byte, 0, min(max(size, int64(rows)*8), 1<<31-1))
	v := newValidity(rows, maxDef > 0)
	var tooBig bool
	err := walk(r, n, sel, maxDef, func(vals []parquet.ByteArray, o, vi int, valid bool) {
		if valid {
			data = append(data, vals[vi]...)
		}
		if len(data) > 1<<31-1 {
			tooBig = true
		}
		offs[o+1] = int32(len(data))
		v.set(o, valid)
	})
	if err == nil && tooBig {
		err = errors.New("more than 2 GB of text in one row group")
	}
	if err != nil {
		return nil, err
	}
	bm, nulls := v.buffer()
	return array.NewData(t, rows, []*memory.Buffer{bm, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)),
		memory.NewBufferBytes(data)}, nil, nulls, 0), nil
}
