package frame_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// writeScanFile writes rows rows of every column kind a scan decodes
// (directly, or through Arrow's reader: small ints, seconds, lists,
// dictionaries), with nulls, in row groups of 1,000 rows and small pages
// (so that skips cross pages and row groups), half of them dictionary
// encoded; with delta, its integers and times that are not are written as
// DELTA_BINARY_PACKED, as the fabric writes them.
func writeScanFile(t *testing.T, rows int, delta bool, extra ...parquet.WriterProperty) string {
	t.Helper()
	mem := memory.DefaultAllocator
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "low", Type: arrow.BinaryTypes.String},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "tsec", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "dict", Type: dict, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range rows {
		null := i%5 == 3
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		appendOr(b.Field(1), null, func() { b.Field(1).(*array.Int64Builder).Append(int64(i) * -7) })
		appendOr(b.Field(2), i%7 == 1, func() { b.Field(2).(*array.Int32Builder).Append(int32(i)) })
		appendOr(b.Field(3), null, func() { b.Field(3).(*array.Int16Builder).Append(int16(i % 1000)) })
		appendOr(b.Field(4), i%3 == 0, func() { b.Field(4).(*array.Float64Builder).Append(float64(i) / 4) })
		appendOr(b.Field(5), null, func() { b.Field(5).(*array.Float32Builder).Append(float32(i) / 8) })
		appendOr(b.Field(6), i%11 == 0, func() { b.Field(6).(*array.BooleanBuilder).Append(i%2 == 0) })
		appendOr(b.Field(7), null, func() { b.Field(7).(*array.StringBuilder).Append(fmt.Sprintf("row %d ☃", i)) })
		b.Field(8).(*array.StringBuilder).Append([]string{"north", "south", "east", ""}[i%4])
		appendOr(b.Field(9), i%13 == 0, func() { b.Field(9).(*array.BinaryBuilder).Append([]byte{byte(i), 0, byte(i >> 8)}) })
		appendOr(b.Field(10), null, func() { b.Field(10).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 1e9)) })
		appendOr(b.Field(11), null, func() { b.Field(11).(*array.TimestampBuilder).Append(arrow.Timestamp(i)) })
		appendOr(b.Field(12), null, func() { b.Field(12).(*array.Date32Builder).Append(arrow.Date32(i)) })
		lb := b.Field(13).(*array.ListBuilder)
		appendOr(lb, null, func() {
			lb.Append(true)
			for j := range i % 3 {
				lb.ValueBuilder().(*array.Int64Builder).Append(int64(j))
			}
		})
		db := b.Field(14).(*array.BinaryDictionaryBuilder)
		appendOr(db, null, func() { _ = db.AppendString([]string{"a", "b", "c"}[i%3]) })
	}
	rec := b.NewRecord()
	defer rec.Release()
	opts := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(1000), parquet.WithDataPageSize(512),
		parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor("low", true), parquet.WithDictionaryFor("s", true), parquet.WithDictionaryFor("i64", true)}
	if delta {
		for _, c := range []string{"k", "i32", "i16", "ts", "tsec", "d"} {
			opts = append(opts, parquet.WithEncodingFor(c, parquet.Encodings.DeltaBinaryPacked))
		}
	}
	path := filepath.Join(t.TempDir(), "scan.parquet")
	writeParquet(t, path, rec, parquet.NewWriterProperties(append(opts, extra...)...), pqarrow.WithStoreSchema())
	return path
}

// writeParquet writes rec to a new Parquet file at path.
func writeParquet(t *testing.T, path string, rec arrow.Record, props *parquet.WriterProperties, opts ...pqarrow.WriterOption) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.NewArrowWriterProperties(opts...))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func appendOr(b array.Builder, null bool, add func()) {
	if null {
		b.AppendNull()
		return
	}
	add()
}

// TestScanWhereEqualsTake checks the late-materialised scan against the
// plain reading of the whole file, rows picked after: every column kind,
// for selections that keep all rows, none, single rows at the edges of
// row groups, dense and sparse rows (runs skipped within and across
// pages), and with a projection.
//
// The files differ in how their pages are laid out: integers plain or
// as deltas, version 2 data pages (definition levels outside the
// compressed values), and dictionaries that outgrow their page, so that
// a column chunk has dictionary pages then plain ones.
func TestScanWhereEqualsTake(t *testing.T) {
	files := []struct {
		name  string
		delta bool
		extra []parquet.WriterProperty
	}{
		{"plain", false, nil},
		{"delta", true, nil},
		{"pages v2", false, []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2)}},
		{"dictionary fallback", false, []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(600)}},
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) { testScanWhereEqualsTake(t, writeScanFile(t, 5000, f.delta, f.extra...)) })
	}
}

func testScanWhereEqualsTake(t *testing.T, path string) {
	const rows = 5000
	want := readArrow(t, path)
	defer want.Release()
	// Read whole, without a filter, it is what Arrow's reader reads.
	for _, batch := range []int{frame.DefaultBatchSize, 300, 7} {
		got := readAll(t, path, frame.Scan{}, frame.WithBatchSize(batch))
		for i, f := range want.Schema().Fields() {
			if !arrow.TypeEqual(got.Column(i).DataType(), f.Type) || !sameValues(got.Column(i), want.Column(i)) {
				t.Errorf("whole read, batch %d: column %s differs", batch, f.Name)
			}
		}
		got.Release()
	}
	cases := []struct {
		name string
		keep func(k int64) bool
		cols []string
	}{
		{"all", func(int64) bool { return true }, nil},
		{"none", func(int64) bool { return false }, nil},
		{"first and last", func(k int64) bool { return k == 0 || k == rows-1 }, nil},
		{"group edges", func(k int64) bool { return k%1000 == 999 || k%1000 == 0 }, nil},
		{"every third", func(k int64) bool { return k%3 == 0 }, nil},
		{"sparse runs", func(k int64) bool { return k >= 1200 && k < 1210 || k >= 3990 && k < 4020 }, nil},
		{"one group", func(k int64) bool { return k >= 2000 && k < 3000 }, nil},
		{"gaps of 1,500", func(k int64) bool { return k%1500 == 7 }, nil},
		{"projection", func(k int64) bool { return k%4 == 1 }, []string{"s", "list", "k", "tsec"}},
		{"no column", func(k int64) bool { return k%4 == 1 }, []string{}},
	}
	// The filter reads k, and with it text columns stored with
	// dictionaries (read as dictionaries, returned as text) or not.
	for _, whereCols := range [][]string{{"k"}, {"k", "low", "s", "bin"}} {
		for _, batch := range []int{frame.DefaultBatchSize, 300, 7} {
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/batch %d/where %v", c.name, batch, whereCols), func(t *testing.T) {
					where := func(rec arrow.Record) ([]int32, bool, error) {
						ks := rec.Column(0).(*array.Int64).Int64Values()
						var sel []int32
						for i, k := range ks {
							if c.keep(k) {
								sel = append(sel, int32(i))
							}
						}
						return sel, len(sel) == len(ks), nil
					}
					got := readAll(t, path, frame.Scan{Columns: c.cols, Where: where, WhereColumns: whereCols}, frame.WithBatchSize(batch))
					defer got.Release()
					var sel []int32
					ks := want.Column(0).(*array.Int64).Int64Values()
					for i, k := range ks {
						if c.keep(k) {
							sel = append(sel, int32(i))
						}
					}
					if got.NumRows() != int64(len(sel)) {
						t.Fatalf("%d rows, want %d", got.NumRows(), len(sel))
					}
					for i, f := range got.Schema().Fields() {
						j := want.Schema().FieldIndices(f.Name)[0]
						exp, err := frame.Take(want.Column(j), sel)
						if err != nil {
							t.Fatal(err)
						}
						if !arrow.TypeEqual(got.Column(i).DataType(), exp.DataType()) {
							t.Errorf("column %s: type %s, want %s", f.Name, got.Column(i).DataType(), exp.DataType())
						} else if !sameValues(got.Column(i), exp) {
							t.Errorf("column %s differs:\n got %v\nwant %v", f.Name, got.Column(i), exp)
						}
						exp.Release()
					}
					if c.cols != nil && int(got.NumCols()) != len(c.cols) {
						t.Errorf("%d columns, want %d", got.NumCols(), len(c.cols))
					}
				})
			}
		}
	}
}

// TestScanWhereError: an error of the filter fails the read, and closing
// a scan midway stops its workers.
func TestScanWhereError(t *testing.T) {
	path := writeScanFile(t, 5000, true)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := frame.OpenParquet(f, path, frame.Scan{WhereColumns: []string{"k"}, Where: func(rec arrow.Record) ([]int32, bool, error) {
		if rec.Column(0).(*array.Int64).Value(0) == 3000 {
			return nil, false, fmt.Errorf("bad row group")
		}
		return nil, true, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := src.Next()
		if err != nil {
			if err == io.EOF || err.Error() != "bad row group" {
				t.Fatalf("after %d batches: %v, want the filter's error", n, err)
			}
			break
		}
		n++
		rec.Release()
	}
	if n != 3 {
		t.Errorf("%d batches before the error, want 3", n)
	}
	src.Close()
	// Closed before the first read.
	if f, err = os.Open(path); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err = frame.OpenParquet(f, path, frame.Scan{WhereColumns: []string{"k"}, Where: func(arrow.Record) ([]int32, bool, error) { return nil, true, nil }})
	if err != nil {
		t.Fatal(err)
	}
	src.Close()
	if _, err := src.Next(); err == nil {
		t.Error("read after close succeeded")
	}
}

// readAll reads a file through a scan into one record.
func readAll(t *testing.T, path string, scan frame.Scan, opts ...frame.Option) arrow.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := frame.OpenParquet(f, path, scan, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var recs []arrow.Record
	for {
		rec, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	tbl := array.NewTableFromRecords(src.Schema(), recs)
	defer tbl.Release()
	for _, r := range recs {
		r.Release()
	}
	return tableRecord(t, tbl)
}

// readArrow reads a whole file with Arrow's own reader: what the scans are
// held to.
func readArrow(t *testing.T, path string) arrow.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	return tableRecord(t, tbl)
}

// tableRecord concatenates a table's chunks into one record.
func tableRecord(t *testing.T, tbl arrow.Table) arrow.Record {
	t.Helper()
	cols := make([]arrow.Array, tbl.NumCols())
	for i := range cols {
		c := tbl.Column(i).Data().Chunks()
		if len(c) == 0 {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, tbl.Schema().Field(i).Type, 0)
			continue
		}
		a, err := array.Concatenate(c, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = a
	}
	out := array.NewRecord(tbl.Schema(), cols, tbl.NumRows())
	for _, a := range cols {
		a.Release()
	}
	return out
}

// sameValues compares arrays row by row (dictionaries by their values:
// the order of a dictionary is the reader's).
func sameValues(a, b arrow.Array) bool {
	if array.Equal(a, b) {
		return true
	}
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) || a.ValueStr(i) != b.ValueStr(i) {
			return false
		}
	}
	return true
}

// mostFile is a file that records whether it was told most of it will be
// read.
type mostFile struct {
	*os.File
	most bool
}

func (m *mostFile) ReadMost() { m.most = true }

// TestScanTellsReadMost: a scan that reads (nearly) every column of every
// row group tells its reader so (a blob then downloads rather than
// fetching chunk by chunk); one that reads a column, or no row group,
// does not.
func TestScanTellsReadMost(t *testing.T) {
	path := writeScanFile(t, 5000, true)
	none := func(frame.RowGroupStats) bool { return false }
	where := func(rec arrow.Record) ([]int32, bool, error) { return nil, true, nil }
	for _, c := range []struct {
		name string
		scan frame.Scan
		want bool
	}{
		{"every column", frame.Scan{}, true},
		{"every column, filtered", frame.Scan{Where: where, WhereColumns: []string{"k"}}, true},
		{"one column", frame.Scan{Columns: []string{"k"}}, false},
		{"no row group", frame.Scan{Keep: none}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			mf := &mostFile{File: f}
			src, err := frame.OpenParquet(mf, path, c.scan)
			if err != nil {
				t.Fatal(err)
			}
			src.Close()
			if mf.most != c.want {
				t.Errorf("told read-most %v, want %v", mf.most, c.want)
			}
		})
	}
}

// TestScanDeltaExtremes: integers stored as deltas of every width, up to
// the full 64 bits (deltas that wrap), read by a filtered scan as Arrow's
// reader reads them.
func TestScanDeltaExtremes(t *testing.T) {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(1, 2))
	const rows = 3000
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		var v int64
		switch i % 7 {
		case 0:
			v = math.MinInt64
		case 1:
			v = math.MaxInt64
		case 2:
			v = int64(rng.Uint64())
		case 3:
			v = int64(rng.Uint64() >> (rng.Uint64() % 64))
		default:
			v = int64(i) * 1e9
		}
		appendOr(b.Field(1), i%11 == 5, func() { b.Field(1).(*array.Int64Builder).Append(v) })
		appendOr(b.Field(2), i%13 == 5, func() { b.Field(2).(*array.Int32Builder).Append(int32(v >> (i % 33))) })
	}
	rec := b.NewRecord()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "delta.parquet")
	writeParquet(t, path, rec, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1000), parquet.WithDataPageSize(700),
		parquet.WithDictionaryDefault(false), parquet.WithEncoding(parquet.Encodings.DeltaBinaryPacked)))
	want := readArrow(t, path)
	defer want.Release()
	for _, step := range []int64{1, 2, 5, 400} {
		where := func(r arrow.Record) ([]int32, bool, error) {
			var sel []int32
			for i, k := range r.Column(0).(*array.Int64).Int64Values() {
				if k%step == 0 {
					sel = append(sel, int32(i))
				}
			}
			return sel, len(sel) == int(r.NumRows()), nil
		}
		got := readAll(t, path, frame.Scan{Where: where, WhereColumns: []string{"k"}}, frame.WithBatchSize(256))
		var sel []int32
		for i := int32(0); i < rows; i++ {
			if int64(i)%step == 0 {
				sel = append(sel, i)
			}
		}
		for c := range 3 {
			exp, err := frame.Take(want.Column(c), sel)
			if err != nil {
				t.Fatal(err)
			}
			if !sameValues(got.Column(c), exp) {
				t.Errorf("every %d rows, column %s differs", step, want.ColumnName(c))
			}
			exp.Release()
		}
		got.Release()
	}
}
