package frame_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// TestMaxColumns: a table of MaxColumns columns is read and written; one
// more is refused, naming the count and the bound, whether it comes as
// CSV or as Parquet (by a scan, or for its schema), or is to be written.
func TestMaxColumns(t *testing.T) {
	dir := t.TempDir()
	csvOf := func(n int) string {
		names := make([]string, n)
		vals := make([]string, n)
		for i := range n {
			names[i], vals[i] = "c"+strconv.Itoa(i), strconv.Itoa(i)
		}
		p := filepath.Join(dir, strconv.Itoa(n)+".csv")
		if err := os.WriteFile(p, []byte(strings.Join(names, ",")+"\n"+strings.Join(vals, ",")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const want = "4097 columns: a table has at most 4096"

	src, err := frame.Open(csvOf(frame.MaxColumns), frame.Auto)
	if err != nil {
		t.Fatalf("%d columns: %v", frame.MaxColumns, err)
	}
	src.Close()
	if _, err := frame.Open(csvOf(frame.MaxColumns+1), frame.Auto); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a CSV of %d columns: %v, want %q", frame.MaxColumns+1, err, want)
	}
	f, err := os.Open(csvOf(frame.MaxColumns + 1))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := frame.OpenReader(f, frame.CSV, frame.NoCompression); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a CSV reader of %d columns: %v, want %q", frame.MaxColumns+1, err, want)
	}

	fields := make([]arrow.Field, frame.MaxColumns+1)
	for i := range fields {
		fields[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: arrow.PrimitiveTypes.Int64}
	}
	schema := arrow.NewSchema(fields, nil)
	if _, err := frame.NewSink(os.Stdout, frame.CSV, frame.NoCompression, schema); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a sink of %d columns: %v, want %q", frame.MaxColumns+1, err, want)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := range fields {
		b.Field(i).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	pq := filepath.Join(dir, "wide.parquet")
	writeParquet(t, pq, rec, nil)
	open := func() *os.File {
		in, err := os.Open(pq)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close() })
		return in
	}
	if _, err := frame.OpenParquet(open(), "wide.parquet", frame.Scan{}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a Parquet scan of %d columns: %v, want %q", frame.MaxColumns+1, err, want)
	}
	if _, _, err := frame.ParquetMeta(open(), "wide.parquet"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a Parquet schema of %d columns: %v, want %q", frame.MaxColumns+1, err, want)
	}
	if _, err := frame.Open(pq, frame.Auto); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a Parquet file of %d columns: %v, want %q", frame.MaxColumns+1, err, want)
	}
}
