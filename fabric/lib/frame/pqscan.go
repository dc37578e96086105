package frame

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Scan narrows a read of a Parquet file to what the reader needs: work
// pushed down into the file, so that columns nobody reads are not
// decoded and row groups no row of which can match are not read at all.
type Scan struct {
	// Columns are the columns to read (nil: all). They come in the
	// file's order; a name the file lacks is an error.
	Columns []string
	// Keep, when set, is asked about each row group with its statistics;
	// a row group it refuses is skipped.
	Keep func(RowGroupStats) bool
	// Where, when set, picks the rows to keep of each row group read,
	// given a batch of the row group's WhereColumns (every row, in
	// order): the indices of the rows that match, in increasing order, or
	// all. The other columns are decoded for those rows only, and a row
	// group where no row matches costs only its WhereColumns. Row groups
	// are then read in parallel, and come out in order: Where is called
	// from several goroutines at once. The scan keeps the sel it returns
	// (the kept rows of several batches come out as one): a new slice
	// each call.
	Where        func(arrow.Record) (sel []int32, all bool, err error)
	WhereColumns []string
}

// RowGroupStats describes a row group from the file's metadata.
type RowGroupStats struct {
	// Rows is the number of rows of the row group.
	Rows int64
	// Columns holds the statistics of each top-level column that has
	// usable ones.
	Columns map[string]ColumnStats
}

// ColumnStats are a column chunk's statistics. Min and Max are int64,
// float64, string or bool, and set only when HasMinMax; Nulls is set only
// when HasNulls.
type ColumnStats struct {
	Min, Max  any
	HasMinMax bool
	Nulls     int64
	HasNulls  bool
}

// ParquetSource is a Source over a Parquet file read through a Scan. It
// tells how many row groups it read.
type ParquetSource struct {
	pf          *file.Reader
	sel         *selectScan // the scan of the row groups read (nil: nothing to decode)
	where       bool        // the scan had a Where, and applies it
	read, total int
	// With nothing to decode (no row group kept, or no column asked):
	empty   *arrow.Schema
	pending []int64 // the rows of each kept row group, still to return
	closed  bool
}

// RowGroups returns the number of row groups the scan reads and the
// number the file has.
func (s *ParquetSource) RowGroups() (read, total int) { return s.read, s.total }

// OpenParquet opens a Parquet file for a scan. The source owns nothing:
// the caller closes r after the source.
func OpenParquet(r parquet.ReaderAtSeeker, name string, scan Scan, opts ...Option) (_ *ParquetSource, err error) {
	defer recoverCorrupt(name, &err)
	o := makeOptions(opts)
	pf, err := file.NewParquetReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: not a Parquet file: %v", name, err)
	}
	if err := checkParquetWidth(pf, name); err != nil {
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(o.batch)}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	fields := fr.Manifest.Fields
	var leaves []int
	if scan.Columns != nil {
		want := map[string]bool{}
		for _, c := range scan.Columns {
			want[c] = true
		}
		for _, f := range fields {
			if want[f.Field.Name] {
				leaves = leafIndices(f, leaves)
				delete(want, f.Field.Name)
			}
		}
		for _, c := range scan.Columns {
			if want[c] {
				pf.Close()
				return nil, fmt.Errorf("unknown column '%s'", c)
			}
		}
		if leaves == nil {
			leaves = []int{} // no column: rows only
		}
	}
	total := pf.NumRowGroups()
	groups := make([]int, 0, total)
	for i := range total {
		if scan.Keep == nil || scan.Keep(rowGroupStats(pf.MetaData().RowGroup(i), fields)) {
			groups = append(groups, i)
		}
	}
	s := &ParquetSource{pf: pf, read: len(groups), total: total, where: scan.Where != nil}
	if len(groups) == 0 || len(leaves) == 0 && scan.Columns != nil && scan.Where == nil {
		// Nothing to read: the schema alone, or row counts without columns.
		schema, err := fr.Schema()
		if err != nil {
			pf.Close()
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		s.empty = projectSchema(schema, scan.Columns)
		for _, g := range groups {
			s.pending = append(s.pending, pf.MetaData().RowGroup(g).NumRows())
		}
		return s, nil
	}
	if rm, ok := r.(mostReader); ok && readsMost(pf.MetaData(), groups, leaves) {
		rm.ReadMost()
	}
	if s.sel, err = newSelectScan(name, r, pf, fr, scan.Columns, scan.WhereColumns, groups, scan.Where, o.batch); err != nil {
		pf.Close()
		return nil, err
	}
	return s, nil
}

// mostReader is a file reader that fetches the file differently when
// told most of it will be read (a blob read by chunk: one download).
type mostReader interface {
	ReadMost()
}

// readsMost reports whether reading the leaves (nil: all) of the row
// groups reads at least three quarters of the file's column data.
func readsMost(md *metadata.FileMetaData, groups, leaves []int) bool {
	var all, read int64
	kept := map[int]bool{}
	for _, g := range groups {
		kept[g] = true
	}
	wanted := map[int]bool{}
	for _, l := range leaves {
		wanted[l] = true
	}
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return false
			}
			n := cc.TotalCompressedSize()
			all += n
			if kept[g] && (leaves == nil || wanted[c]) {
				read += n
			}
		}
	}
	return all > 0 && read*4 >= all*3
}

// leafIndices appends the leaf column indices under a field.
func leafIndices(f pqarrow.SchemaField, out []int) []int {
	if f.IsLeaf() {
		return append(out, f.ColIndex)
	}
	for _, c := range f.Children {
		out = leafIndices(c, out)
	}
	return out
}

// projectSchema keeps the fields of s named in cols (nil: all), in s's
// order.
func projectSchema(s *arrow.Schema, cols []string) *arrow.Schema {
	if cols == nil {
		return s
	}
	want := map[string]bool{}
	for _, c := range cols {
		want[c] = true
	}
	var fs []arrow.Field
	for _, f := range s.Fields() {
		if want[f.Name] {
			fs = append(fs, f)
		}
	}
	return arrow.NewSchema(fs, nil)
}

// rowGroupStats reads the statistics of a row group's top-level leaf
// columns of the types a comparison can use.
func rowGroupStats(rg *metadata.RowGroupMetaData, fields []pqarrow.SchemaField) RowGroupStats {
	out := RowGroupStats{Rows: rg.NumRows(), Columns: map[string]ColumnStats{}}
	for _, f := range fields {
		if !f.IsLeaf() {
			continue
		}
		cc, err := rg.ColumnChunk(f.ColIndex)
		if err != nil {
			continue
		}
		st, err := cc.Statistics()
		if err != nil || st == nil {
			continue
		}
		cs := ColumnStats{HasNulls: st.HasNullCount()}
		if cs.HasNulls {
			cs.Nulls = st.NullCount()
		}
		if st.HasMinMax() {
			cs.Min, cs.Max, cs.HasMinMax = minMax(st, f.Field.Type)
		}
		out.Columns[f.Field.Name] = cs
	}
	return out
}

// minMax converts typed statistics to Go values, for the Arrow types whose
// Parquet sort order is the order of those values: signed integers,
// floats, strings and booleans. Times and unsigned or decimal columns get
// none (their ranges are not compared).
func minMax(st metadata.TypedStatistics, t arrow.DataType) (lo, hi any, ok bool) {
	if d, isDict := t.(*arrow.DictionaryType); isDict {
		t = d.ValueType
	}
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16:
		switch s := st.(type) {
		case *metadata.Int32Statistics:
			return int64(s.Min()), int64(s.Max()), true
		case *metadata.Int64Statistics:
			return s.Min(), s.Max(), true
		}
	case arrow.FLOAT32, arrow.FLOAT64:
		switch s := st.(type) {
		case *metadata.Float32Statistics:
			return float64(s.Min()), float64(s.Max()), true
		case *metadata.Float64Statistics:
			return s.Min(), s.Max(), true
		}
	case arrow.STRING, arrow.LARGE_STRING:
		if s, isBA := st.(*metadata.ByteArrayStatistics); isBA {
			return string(s.Min()), string(s.Max()), true
		}
	case arrow.BOOL:
		if s, isBool := st.(*metadata.BooleanStatistics); isBool {
			return s.Min(), s.Max(), true
		}
	}
	return nil, nil, false
}

// Filtered reports whether the source applies its scan's Where.
func (s *ParquetSource) Filtered() bool { return s.where }

// Schema returns the columns the scan reads.
func (s *ParquetSource) Schema() *arrow.Schema {
	if s.sel != nil {
		return s.sel.Schema()
	}
	return s.empty
}

// Next returns the next batch; a scan of no column returns batches of
// rows without columns.
func (s *ParquetSource) Next() (arrow.Record, error) {
	if s.sel != nil {
		return s.sel.Next()
	}
	if s.closed {
		return nil, errors.New("source is closed")
	}
	for len(s.pending) > 0 {
		n := s.pending[0]
		s.pending = s.pending[1:]
		if n > 0 && s.empty.NumFields() == 0 {
			return array.NewRecord(s.empty, nil, n), nil
		}
	}
	return nil, io.EOF
}

// Close releases the reader.
func (s *ParquetSource) Close() error {
	if s.sel != nil {
		return s.sel.Close()
	}
	if !s.closed {
		s.closed = true
		s.pf.Close()
	}
	return nil
}

// ParquetMeta reads a Parquet file's schema and row count from its footer,
// without reading any row.
func ParquetMeta(r parquet.ReaderAtSeeker, name string) (_ *arrow.Schema, _ int64, err error) {
	defer recoverCorrupt(name, &err)
	pf, err := file.NewParquetReader(r)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: not a Parquet file: %v", name, err)
	}
	if err := checkParquetWidth(pf, name); err != nil {
		return nil, 0, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", name, err)
	}
	s, err := fr.Schema()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", name, err)
	}
	return s, pf.NumRows(), nil
}
