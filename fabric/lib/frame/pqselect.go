package frame

import (
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

// selectScan reads a Parquet file's row groups, with a row filter or
// without (every row). Filtered, it is late materialised: for each row
// group it decodes the filter's columns, asks the filter which rows
// match, and decodes the other columns for those rows only, skipping the
// runs of rows between them. Row groups are read
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
// fields returned (nil: all), whereCols the fields filter reads (filter
// nil: every row is returned).
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
			err := s.readGroupSafely(g, func(rec arrow.Record) bool {
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

// gatherBatches bounds the batches of the filter's columns whose kept
// rows make one batch returned. A row group's rows are read a batch at a
// time; the rows kept of consecutive batches are gathered into one batch
// returned, once it holds half a batch of rows or gatherBatches batches
// were read for it: a filter that keeps few rows returns few large
// batches, not many small ones, each of which costs every later stage (a
// writer: a call per column) as much as a full one.
const gatherBatches = 8

// gatherBytes bounds the plain bytes of a gathered batch too (the out
// columns' bytes per row, as the footer says, times the rows kept): every
// worker holds a batch queued and one in the making, and the kept rows of
// a wide table gathered by rows alone made the scan's peak memory a third
// larger (TestFilterWithinMemoryLimit rode its limit).
const gatherBytes = 2 << 20

// outRowBytes is the out columns' plain bytes per row in row group rg,
// as its footer says (at most gatherBytes).
func (s *selectScan) outRowBytes(rg *file.RowGroupReader) int64 {
	rows := rg.NumRows()
	if rows <= 0 {
		return 0
	}
	var per int64
	for _, c := range s.out {
		for _, leaf := range c.leaves {
			md, err := rg.MetaData().ColumnChunk(leaf)
			if err != nil {
				continue
			}
			per += max(md.TotalUncompressedSize(), 0) / rows
			if per >= gatherBytes {
				return gatherBytes
			}
		}
	}
	return per
}

// wherePart is a batch of the filter's columns, and the rows it keeps.
type wherePart struct {
	arrs []arrow.Array
	sel  []int32 // nil: all
	rows int64
}

func releaseParts(parts []wherePart) {
	for _, p := range parts {
		releaseArrays(p.arrs)
	}
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// readGroup reads the matching rows of row group g and emits them, in
// batches (until emit returns false).
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
	var parts []wherePart
	defer func() {
		releaseParts(parts)
		for _, c := range append(where, out...) {
			if c != nil {
				c.release()
			}
		}
	}()
	var kept int64
	rowBytes := s.outRowBytes(rg)
	flush := func() (bool, error) {
		if len(parts) == 0 {
			return true, nil
		}
		rec, err := s.gather(parts, out)
		releaseParts(parts)
		parts, kept = parts[:0], 0
		if err != nil {
			return false, err
		}
		return emit(rec), nil
	}
	for start := int64(0); start < n; start += s.batch {
		m := min(s.batch, n-start)
		p, err := s.readWhere(where, m)
		if err != nil {
			return err
		}
		if p.sel != nil && len(p.sel) == 0 && len(parts) == 0 {
			// No row kept, none waiting: the other columns pass over it.
			releaseArrays(p.arrs)
			for _, c := range out {
				if c != nil {
					if err := c.skip(m); err != nil {
						return err
					}
				}
			}
			continue
		}
		parts = append(parts, p)
		kept += int64(outRows(m, p.sel))
		if kept*2 >= s.batch || len(parts) == gatherBatches || kept*rowBytes >= gatherBytes {
			if ok, err := flush(); err != nil || !ok {
				return err
			}
		}
	}
	_, err := flush()
	return err
}

// readGroupSafely is readGroup, a panic of Arrow's reader (a corrupt
// file) its error.
func (s *selectScan) readGroupSafely(g int, emit func(arrow.Record) bool) (err error) {
	defer recoverCorrupt(s.name, &err)
	return s.readGroup(g, emit)
}

// readWhere reads the next m rows of the filter's columns and asks the
// filter which to keep.
func (s *selectScan) readWhere(where []*cursor, m int64) (wherePart, error) {
	p := wherePart{arrs: make([]arrow.Array, len(where)), rows: m}
	if s.filter == nil {
		return p, nil // every row
	}
	for i, c := range where {
		a, err := c.read(m, nil)
		if err != nil {
			releaseArrays(p.arrs)
			return wherePart{}, err
		}
		p.arrs[i] = a
	}
	fields := make([]arrow.Field, len(p.arrs))
	for i, a := range p.arrs {
		fields[i] = arrow.Field{Name: s.where[i].field.Name, Type: a.DataType(), Nullable: true}
	}
	batch := array.NewRecord(arrow.NewSchema(fields, nil), p.arrs, m)
	defer batch.Release()
	sel, all, err := s.filter(batch)
	if err != nil {
		releaseArrays(p.arrs)
		return wherePart{}, err
	}
	if all {
		sel = nil
	} else if sel == nil {
		sel = []int32{}
	}
	p.sel = sel
	return p, nil
}

// gather decodes the kept rows of parts (consecutive batches of the
// filter's columns, read from where the other columns' cursors stand)
// into one batch.
func (s *selectScan) gather(parts []wherePart, out []*cursor) (arrow.Record, error) {
	var total, rows int64
	all := true
	for _, p := range parts {
		total += p.rows
		rows += int64(outRows(p.rows, p.sel))
		all = all && p.sel == nil
	}
	var sel []int32 // the rows kept of the parts' rows, nil: all
	if !all {
		sel = make([]int32, 0, rows)
		off := int32(0)
		for _, p := range parts {
			if p.sel == nil {
				for r := range int32(p.rows) {
					sel = append(sel, off+r)
				}
			} else {
				for _, r := range p.sel {
					sel = append(sel, off+r)
				}
			}
			off += int32(p.rows)
		}
	}
	cols := make([]arrow.Array, len(s.out))
	var err error
	for i, c := range s.out {
		if c.where >= 0 {
			cols[i], err = s.keptWhere(parts, c)
		} else {
			cols[i], err = out[i].read(total, sel)
		}
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
	}
	defer releaseArrays(cols)
	return array.NewRecord(s.schema, cols, rows), nil
}

// keptWhere returns the kept rows of a filter's column that is returned.
func (s *selectScan) keptWhere(parts []wherePart, c scanColumn) (arrow.Array, error) {
	var pieces []arrow.Array
	defer func() { releaseArrays(pieces) }()
	for _, p := range parts {
		a := p.arrs[c.where]
		var piece arrow.Array
		switch d, isDict := a.(*array.Dictionary); {
		case p.sel != nil && len(p.sel) == 0:
			continue
		case isDict:
			piece = plainText(d, p.sel, c.field.Type)
		case p.sel == nil:
			piece = a
			piece.Retain()
		default:
			var err error
			if piece, err = Take(a, p.sel); err != nil {
				return nil, err
			}
		}
		pieces = append(pieces, piece)
	}
	// The first part keeps a row: there is a piece.
	if len(pieces) == 1 {
		pieces[0].Retain()
		return pieces[0], nil
	}
	return array.Concatenate(pieces, memory.DefaultAllocator)
}
