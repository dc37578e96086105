package frame_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// TestParquetEncodings pins how each kind of column is written:
// integers and times as deltas (extremes, negatives and nulls included,
// which read back exactly), text with few distinct values with a
// dictionary, other text and floats plain.
func TestParquetEncodings(t *testing.T) {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "cpu", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "status", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "message", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	extremes := []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, math.MinInt64 + 1, math.MaxInt64 - 1}
	const n = 200_000
	for i := range n {
		v := int64(i)*3 - 100
		if i < len(extremes) {
			v = extremes[i]
		}
		null := i%97 == 5
		appendOr(b.Field(0), null, func() { b.Field(0).(*array.Int64Builder).Append(v) })
		appendOr(b.Field(1), null, func() { b.Field(1).(*array.Int32Builder).Append(int32(v)) })
		appendOr(b.Field(2), null, func() {
			b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000_000 + int64(i)*1e9))
		})
		appendOr(b.Field(3), null, func() { b.Field(3).(*array.Date32Builder).Append(arrow.Date32(20_000 - i%400)) })
		appendOr(b.Field(4), null, func() { b.Field(4).(*array.Float64Builder).Append(float64(i%10_000) / 100) })
		appendOr(b.Field(5), null, func() { b.Field(5).(*array.StringBuilder).Append([]string{"OK", "WARN", "CRIT"}[i%3]) })
		appendOr(b.Field(6), null, func() { b.Field(6).(*array.StringBuilder).Append("request " + strconv.Itoa(i) + " handled") })
	}
	rec := b.NewRecord()
	defer rec.Release()
	src := frame.FromRecords(schema, []arrow.Record{rec})
	path := filepath.Join(t.TempDir(), "enc.parquet")
	if err := src.Write(path, frame.Auto); err != nil {
		t.Fatal(err)
	}

	pf := openParquet(t, path)
	want := map[string]parquet.Encoding{
		"id": parquet.Encodings.DeltaBinaryPacked, "n": parquet.Encodings.DeltaBinaryPacked,
		"ts": parquet.Encodings.DeltaBinaryPacked, "day": parquet.Encodings.DeltaBinaryPacked,
		"cpu": parquet.Encodings.Plain, "status": parquet.Encodings.RLEDict, "message": parquet.Encodings.Plain,
	}
	rg := pf.MetaData().RowGroup(0)
	for i := range schema.NumFields() {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		name := schema.Field(i).Name
		found := false
		for _, e := range cc.Encodings() {
			found = found || e == want[name]
		}
		if !found {
			t.Errorf("column %s: encodings %v, want %v among them", name, cc.Encodings(), want[name])
		}
	}

	got, err := frame.Read(path, frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, schema, got, src)
}

// TestParquetTextDictionaries: text columns chosen for a dictionary
// (few distinct values in the first batch) read back as the same text,
// of the same type, whatever comes after: new values in a later batch,
// nulls, binary values, and a column whose values stop repeating (its
// dictionary outgrows its bounds).
func TestParquetTextDictionaries(t *testing.T) {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "state", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "later", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	var recs []arrow.Record
	row := 0
	for batch := range 8 {
		b := array.NewRecordBuilder(mem, schema)
		for range 50_000 {
			state := []string{"OK", "WARN", "CRIT"}[row%3]
			if batch >= 2 && row%7 == 0 {
				state = "NEW" + strconv.Itoa(batch) // new values mid row group
			}
			appendOr(b.Field(0), row%11 == 0, func() { b.Field(0).(*array.StringBuilder).Append(state) })
			later := "x" + strconv.Itoa(row%4)
			if batch >= 1 {
				later = "distinct " + strconv.Itoa(row) // past the dictionary's bounds
			}
			appendOr(b.Field(1), row%13 == 0, func() { b.Field(1).(*array.LargeStringBuilder).Append(later) })
			appendOr(b.Field(2), row%17 == 0, func() { b.Field(2).(*array.BinaryBuilder).Append([]byte{byte(row % 5), 0}) })
			row++
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	src := frame.FromRecords(schema, recs) // takes the records
	path := filepath.Join(t.TempDir(), "dict.parquet")
	if err := src.Write(path, frame.Auto); err != nil {
		t.Fatal(err)
	}
	got, err := frame.Read(path, frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range got.Schema().Fields() {
		if w := schema.Field(i); f.Name != w.Name || !arrow.TypeEqual(f.Type, w.Type) {
			t.Fatalf("column %d read back as %s %s, want %s %s", i, f.Name, f.Type, w.Name, w.Type)
		}
	}
	sameRows(t, schema, got, src)
	pf := openParquet(t, path)
	// A row group starts where a dictionary grew: state and bin keep
	// theirs in every row group.
	for g := range pf.NumRowGroups() {
		for _, c := range []int{0, 2} {
			cc, err := pf.MetaData().RowGroup(g).ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(cc.Encodings(), parquet.Encodings.RLEDict) {
				t.Errorf("row group %d column %s: encodings %v, want a dictionary", g, schema.Field(c).Name, cc.Encodings())
			}
		}
	}
}

// openParquet opens a Parquet file's metadata, closed when the test ends.
func openParquet(t *testing.T, path string) *file.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pf.Close() })
	return pf
}

// sameRows fails unless got holds want's rows, in order.
func sameRows(t *testing.T, schema *arrow.Schema, got, want *frame.Frame) {
	t.Helper()
	g, w := rows(got), rows(want)
	if len(g) != len(w) {
		t.Fatalf("%d rows read back, want %d", len(g), len(w))
	}
	for i := range w {
		for j := range w[i] {
			if g[i][j] != w[i][j] {
				t.Fatalf("row %d column %s: %v, want %v", i, schema.Field(j).Name, g[i][j], w[i][j])
			}
		}
	}
}
