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
	name   string
	pf     *file.Reader
	ahead  prefetcher          // the file's reader, when it can fetch ahead (nil otherwise)
	fr     *pqarrow.FileReader // for the columns decoded through Arrow's reader
	dictFr *pqarrow.FileReader // reads the filter's text columns as dictionaries
	schema *arrow.Schema       // the columns returned
	out    []scanColumn        // one per field of schema
	where  []scanColumn        // the filter's columns
	filter func(arrow.Record) ([]int32, bool, error)

	batch   int64                 // rows per batch returned, at most
	results chan chan groupResult // in row-group order
	cur     chan groupResult      // the row group being returned
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

// prefetcher is a file reader that can start fetching bytes before they
// are read (a blob read by chunk from the object store).
type prefetcher interface {
	Prefetch(off, n int64)
}

// prefetchGroup asks the reader to fetch the column chunks of row group g
// that the scan reads.
func (s *selectScan) prefetchGroup(g int) {
	if s.ahead == nil {
		return
	}
	rg := s.pf.MetaData().RowGroup(g)
	seen := map[int]bool{}
	for _, cols := range [][]scanColumn{s.where, s.out} {
		for _, c := range cols {
			for _, leaf := range c.leaves {
				if seen[leaf] {
					continue
				}
				seen[leaf] = true
				md, err := rg.ColumnChunk(leaf)
				if err != nil {
					continue
				}
				start := md.DataPageOffset()
				if md.HasDictionaryPage() && md.DictionaryPageOffset() > 0 && md.DictionaryPageOffset() < start {
					start = md.DictionaryPageOffset()
				}
				s.ahead.Prefetch(start, md.TotalCompressedSize())
			}
		}
	}
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

// errScanClosed is the error of a read after Close.
var errScanClosed = errors.New("source is closed")

// newSelectScan starts reading groups of pf through fr. cols are the
// fields returned (nil: all), whereCols the fields filter reads.
func newSelectScan(name string, r parquet.ReaderAtSeeker, pf *file.Reader, fr *pqarrow.FileReader, cols, whereCols []string, groups []int,
	filter func(arrow.Record) ([]int32, bool, error), batch int) (*selectScan, error) {
	fields := fr.Manifest.Fields
	byName := map[string]int{}
	for i, f := range fields {
		byName[f.Field.Name] = i
	}
	s := &selectScan{name: name, pf: pf, fr: fr, filter: filter, batch: int64(max(batch, 1)),
		done: make(chan struct{})}
	s.ahead, _ = r.(prefetcher)
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
	}
	// The filter's text columns are read as dictionaries where the file
	// stores them so (states, regions, hosts): each distinct value is
	// compared once, and no string is copied.
	props := fr.Props
	props.BatchSize = s.batch
	props.Parallel = false
	for _, c := range s.where {
		if c.kind == directBytes {
			props.SetReadDict(c.leaves[0], true)
		}
	}
	dictFr, err := pqarrow.NewFileReader(pf, props, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	s.dictFr = dictFr
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

// run reads the row groups, a few at a time, and queues their batches
// in order: each row group has a channel its worker sends batches on, and
// a worker waits while its channel is full, so a row group ahead of the
// reader holds at most a batch or two.
func (s *selectScan) run(groups []int) {
	defer close(s.results)
	workers := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for _, g := range groups {
		ch := make(chan groupResult, 1)
		select {
		case s.results <- ch:
		case <-s.done:
			close(ch)
			return
		}
		s.prefetchGroup(g) // while it waits for a worker
		select {
		case workers <- struct{}{}:
		case <-s.done:
			close(ch)
			return
		}
		go func() {
			defer func() { <-workers }()
			defer close(ch)
			err := s.readGroup(g, func(rec arrow.Record) bool {
				select {
				case ch <- groupResult{rec: rec}:
					return true
				case <-s.done:
					rec.Release()
					return false
				}
			})
			if err != nil {
				select {
				case ch <- groupResult{err: err}:
				case <-s.done:
				}
			}
		}()
	}
}

func (s *selectScan) Schema() *arrow.Schema { return s.schema }

func (s *selectScan) Next() (arrow.Record, error) {
	for s.err == nil {
		if s.cur == nil {
			ch, ok := <-s.results
			if !ok {
				s.err = io.EOF
				break
			}
			s.cur = ch
		}
		r, ok := <-s.cur
		if !ok {
			s.cur = nil // the row group is done
			continue
		}
		if r.err != nil {
			s.err = r.err
			break
		}
		return r.rec, nil
	}
	return nil, s.err
}

// Close stops the workers, waits for them and releases what they read.
func (s *selectScan) Close() error {
	if s.err == errScanClosed {
		return nil
	}
	close(s.done)
	drain := func(ch chan groupResult) {
		for r := range ch {
			if r.rec != nil {
				r.rec.Release()
			}
		}
	}
	if s.cur != nil {
		drain(s.cur)
	}
	for ch := range s.results {
		drain(ch)
	}
	s.err = errScanClosed
	return s.pf.Close()
}

// readGroup reads the matching rows of row group g, a batch of rows at a
// time, and emits them (until emit returns false).
func (s *selectScan) readGroup(g int, emit func(arrow.Record) bool) error {
	rg := s.pf.RowGroup(g)
	n := rg.NumRows()
	where := make([]*cursor, len(s.where))
	for i, c := range s.where {
		where[i] = &cursor{s: s, rg: rg, g: g, c: c, dict: c.kind == directBytes && dictEncoded(rg, c.leaves[0])}
	}
	out := make([]*cursor, len(s.out))
	for i, c := range s.out {
		if c.where < 0 {
			out[i] = &cursor{s: s, rg: rg, g: g, c: c}
		}
	}
	defer func() {
		for _, c := range append(where, out...) {
			if c != nil {
				c.release()
			}
		}
	}()
	release := func(as []arrow.Array) {
		for _, a := range as {
			if a != nil {
				a.Release()
			}
		}
	}
	for start := int64(0); start < n; start += s.batch {
		m := min(s.batch, n-start)
		arrs := make([]arrow.Array, len(where))
		rec, err := func() (arrow.Record, error) {
			defer release(arrs)
			for i, c := range where {
				a, err := c.read(m, nil)
				if err != nil {
					return nil, err
				}
				arrs[i] = a
			}
			fields := make([]arrow.Field, len(arrs))
			for i, a := range arrs {
				fields[i] = arrow.Field{Name: s.where[i].field.Name, Type: a.DataType(), Nullable: true}
			}
			batch := array.NewRecord(arrow.NewSchema(fields, nil), arrs, m)
			defer batch.Release()
			sel, all, err := s.filter(batch)
			if err != nil {
				return nil, err
			}
			if all {
				sel = nil
			} else if len(sel) == 0 {
				for _, c := range out {
					if c != nil {
						if err := c.skip(m); err != nil {
							return nil, err
						}
					}
				}
				return nil, nil
			}
			cols := make([]arrow.Array, len(s.out))
			defer release(cols)
			for i, c := range s.out {
				switch {
				case c.where >= 0:
					if d, ok := arrs[c.where].(*array.Dictionary); ok {
						cols[i] = plainText(d, sel, c.field.Type)
					} else if sel == nil {
						cols[i] = arrs[c.where]
						cols[i].Retain()
					} else if cols[i], err = Take(arrs[c.where], sel); err != nil {
						return nil, err
					}
				default:
					if cols[i], err = out[i].read(m, sel); err != nil {
						return nil, err
					}
				}
			}
			rows := m
			if sel != nil {
				rows = int64(len(sel))
			}
			return array.NewRecord(s.schema, cols, rows), nil
		}()
		if err != nil {
			return err
		}
		if rec != nil && !emit(rec) {
			return nil
		}
	}
	return nil
}

// cursor reads a column of a row group, a run of rows at a time.
type cursor struct {
	s  *selectScan
	rg *file.RowGroupReader
	g  int
	c  scanColumn
	// A column decoded directly:
	r file.ColumnChunkReader
	// A text column read as a dictionary, a batch at a time:
	dict bool
	rr   pqarrow.RecordReader
	// A column decoded through Arrow's reader, whole, and the rows of it
	// read so far:
	whole arrow.Array
	off   int64
}

// read decodes the rows sel (nil: all) of the next n rows.
func (k *cursor) read(n int64, sel []int32) (arrow.Array, error) {
	if k.dict {
		return k.readDict(n)
	}
	if k.c.kind == viaArrow {
		if err := k.loadWhole(); err != nil {
			return nil, err
		}
		part := array.NewSlice(k.whole, k.off, k.off+n)
		k.off += n
		if sel == nil {
			return part, nil
		}
		defer part.Release()
		return Take(part, sel)
	}
	if k.r == nil {
		r, err := k.rg.Column(k.c.leaves[0])
		if err != nil {
			return nil, k.fail(err)
		}
		k.r = r
	}
	maxDef := k.r.Descriptor().MaxDefinitionLevel()
	var d *array.Data
	var err error
	t := k.c.field.Type
	switch k.c.kind {
	case directBool:
		d, err = decodeBools(k.r.(*file.BooleanColumnChunkReader), t, n, sel, maxDef)
	case directInt32:
		d, err = decodeFixed(k.r.(*file.Int32ColumnChunkReader), t, n, sel, maxDef, arrow.Int32Traits.CastToBytes)
	case directInt64:
		d, err = decodeFixed(k.r.(*file.Int64ColumnChunkReader), t, n, sel, maxDef, arrow.Int64Traits.CastToBytes)
	case directFloat32:
		d, err = decodeFixed(k.r.(*file.Float32ColumnChunkReader), t, n, sel, maxDef, arrow.Float32Traits.CastToBytes)
	case directFloat64:
		d, err = decodeFixed(k.r.(*file.Float64ColumnChunkReader), t, n, sel, maxDef, arrow.Float64Traits.CastToBytes)
	case directBytes:
		// The chunk's plain size (values and their lengths) is a fair
		// guess of the text's size, so the buffer is sized once.
		size := int64(0)
		if md, err := k.rg.MetaData().ColumnChunk(k.c.leaves[0]); err == nil && k.rg.NumRows() > 0 {
			size = md.TotalUncompressedSize() * int64(outRows(n, sel)) / k.rg.NumRows()
		}
		d, err = decodeBytes(k.r.(*file.ByteArrayColumnChunkReader), t, n, sel, maxDef, size)
	}
	if err != nil {
		return nil, k.fail(err)
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// skip passes over the next n rows.
func (k *cursor) skip(n int64) error {
	if k.c.kind == viaArrow {
		k.off += n
		return nil
	}
	if k.r == nil {
		r, err := k.rg.Column(k.c.leaves[0])
		if err != nil {
			return k.fail(err)
		}
		k.r = r
	}
	if _, err := k.r.(interface{ Skip(int64) (int64, error) }).Skip(n); err != nil {
		return k.fail(err)
	}
	return nil
}

func (k *cursor) fail(err error) error {
	return fmt.Errorf("%s: column '%s': %v", k.s.name, k.c.field.Name, err)
}

// readDict reads the next n rows of a text column as a dictionary
// array (every row: it is read for the filter).
func (k *cursor) readDict(n int64) (arrow.Array, error) {
	if k.rr == nil {
		rr, err := k.s.dictFr.GetRecordReader(context.Background(), k.c.leaves, []int{k.g})
		if err != nil {
			return nil, k.fail(err)
		}
		k.rr = rr
	}
	if !k.rr.Next() {
		err := k.rr.Err()
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("the row group ended early")
		}
		return nil, k.fail(err)
	}
	rec := k.rr.RecordBatch()
	if rec.NumRows() != n {
		return nil, k.fail(fmt.Errorf("read %d rows where %d were asked", rec.NumRows(), n))
	}
	a := rec.Column(0)
	a.Retain()
	return a, nil
}

func (k *cursor) release() {
	if k.rr != nil {
		k.rr.Release()
		k.rr = nil
	}
	if k.whole != nil {
		k.whole.Release()
		k.whole = nil
	}
}

// loadWhole decodes the column of the row group with Arrow's reader.
func (k *cursor) loadWhole() error {
	if k.whole != nil {
		return nil
	}
	rr, err := k.s.fr.GetRecordReader(context.Background(), k.c.leaves, []int{k.g})
	if err != nil {
		return k.fail(err)
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
		return k.fail(err)
	}
	switch len(chunks) {
	case 0:
		k.whole = array.MakeArrayOfNull(memory.DefaultAllocator, k.c.field.Type, 0)
	case 1:
		k.whole = chunks[0]
		k.whole.Retain()
	default:
		if k.whole, err = array.Concatenate(chunks, memory.DefaultAllocator); err != nil {
			return k.fail(err)
		}
	}
	return nil
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

// pick is a row kept from a chunk of decoded values: its position in the
// result, and the index of its value in the chunk (-1: null).
type pick struct{ out, vi int32 }

// walk reads the rows sel (nil: all n) of a flat column, a chunk at a
// time: for each chunk it calls keep with the chunk's values and the rows
// kept from it. The values stay valid until keep returns.
func walk[T any](r levelReader[T], n int64, sel []int32, maxDef int16, keep func(vals []T, picks []pick)) error {
	vals := make([]T, decodeChunk)
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, decodeChunk)
	}
	picks := make([]pick, 0, decodeChunk)
	row, k := int64(0), 0
	for row < n {
		if sel != nil {
			if k == len(sel) {
				// The rest of the run is not wanted; the next run starts
				// after it.
				_, err := r.Skip(n - row)
				return err
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
		picks = picks[:0]
		vi := int32(0)
		for li := range int32(lv) {
			valid := maxDef == 0 || defs[li] == maxDef
			at := int32(-1)
			if valid {
				at = vi
				vi++
			}
			if sel == nil {
				picks = append(picks, pick{int32(row) + li, at})
			} else if k < len(sel) && sel[k] == int32(row)+li {
				picks = append(picks, pick{int32(k), at})
				k++
			}
		}
		keep(vals, picks)
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
	err := walk(r, n, sel, maxDef, func(vals []T, picks []pick) {
		for _, p := range picks {
			if p.vi >= 0 {
				out[p.out] = vals[p.vi]
			}
			v.set(int(p.out), p.vi >= 0)
		}
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
	err := walk(r, n, sel, maxDef, func(vals []bool, picks []pick) {
		for _, p := range picks {
			if p.vi >= 0 && vals[p.vi] {
				out[p.out>>3] |= 1 << (p.out & 7)
			}
			v.set(int(p.out), p.vi >= 0)
		}
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
	err := walk(r, n, sel, maxDef, func(vals []parquet.ByteArray, picks []pick) {
		d := data // a local: appends stay off the heap's write barrier
		for _, p := range picks {
			if p.vi >= 0 {
				d = append(d, vals[p.vi]...)
			}
			offs[p.out+1] = int32(len(d))
			v.set(int(p.out), p.vi >= 0)
		}
		data = d
	})
	if err == nil && int64(len(data)) > 1<<31-1 {
		err = errors.New("more than 2 GB of text in one batch")
	}
	if err != nil {
		return nil, err
	}
	bm, nulls := v.buffer()
	return array.NewData(t, rows, []*memory.Buffer{bm, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)),
		memory.NewBufferBytes(data)}, nil, nulls, 0), nil
}

// dictEncoded reports whether every data page of a column chunk is
// dictionary encoded (a writer whose dictionary grew too large falls
// back to plain pages, which would make a dictionary of every value).
func dictEncoded(rg *file.RowGroupReader, col int) bool {
	md, err := rg.MetaData().ColumnChunk(col)
	if err != nil || !md.HasDictionaryPage() {
		return false
	}
	stats := md.EncodingStats()
	if len(stats) == 0 {
		return false
	}
	const dictionaryPage = 2 // PageType DICTIONARY_PAGE
	for _, st := range stats {
		if int(st.PageType) == dictionaryPage {
			continue
		}
		if st.Encoding != parquet.Encodings.PlainDict && st.Encoding != parquet.Encodings.RLEDict {
			return false
		}
	}
	return true
}

// plainText decodes the rows sel (nil: all) of a dictionary of text into
// a plain array of type t (string or binary).
func plainText(d *array.Dictionary, sel []int32, t arrow.DataType) arrow.Array {
	n := d.Len()
	if sel != nil {
		n = len(sel)
	}
	var dOffs []int32
	var dData []byte
	switch dict := d.Dictionary().(type) {
	case *array.String:
		dOffs, dData = dict.ValueOffsets(), stringData(dict)
	case *array.Binary:
		dOffs, dData = dict.ValueOffsets(), stringData(dict)
	default:
		panic("frame: a text dictionary of " + d.Dictionary().DataType().String())
	}
	value := func(j int) []byte { return dData[dOffs[j]:dOffs[j+1]] }
	offs := make([]int32, n+1)
	data := make([]byte, 0, n*8)
	v := newValidity(n, d.NullN() > 0)
	for i := range n {
		row := i
		if sel != nil {
			row = int(sel[i])
		}
		valid := d.IsValid(row)
		if valid {
			data = append(data, value(d.GetValueIndex(row))...)
		}
		offs[i+1] = int32(len(data))
		v.set(i, valid)
	}
	bm, nulls := v.buffer()
	out := array.NewData(t, n, []*memory.Buffer{bm, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)),
		memory.NewBufferBytes(data)}, nil, nulls, 0)
	defer out.Release()
	return array.MakeFromData(out)
}
