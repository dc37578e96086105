package frame_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// streamRows is the number of rows of the multi-batch files: with
// WithBatchSize(64) they span many batches.
const streamRows = 1000

func numbersRows(n int) [][]any {
	out := make([][]any, n)
	for i := range out {
		out[i] = []any{int64(i), float64(i)*1.5 + 0.5, fmt.Sprintf("row %d", i), i%2 == 0}
	}
	return out
}

var numbersDTypes = []frame.DType{
	{Column: "n", DType: "int64"}, {Column: "half", DType: "float64"},
	{Column: "label", DType: "object"}, {Column: "even", DType: "bool"},
}

func TestOpenStreamsBatches(t *testing.T) {
	for _, name := range []string{"in.csv", "in.csv.gz", "in.jsonl", "in.json.zst", "in.parquet", "in.xlsx"} {
		t.Run(name, func(t *testing.T) {
			f, err := frame.FromRows([]string{"n", "half", "label", "even"}, numbersRows(streamRows))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), name)
			if err := f.Write(p, frame.Auto); err != nil {
				t.Fatal(err)
			}
			src, err := frame.Open(p, frame.Auto, frame.WithBatchSize(64))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if got := src.Schema().NumFields(); got != 4 {
				t.Fatalf("schema has %d fields", got)
			}
			batches, rows := 0, 0
			for {
				rec, err := src.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if rec.NumRows() > 64 {
					t.Errorf("batch of %d rows, want at most 64", rec.NumRows())
				}
				if !rec.Schema().Equal(src.Schema()) {
					t.Errorf("batch schema %v, source schema %v", rec.Schema(), src.Schema())
				}
				n := rec.Column(0).(*array.Int64)
				for i := 0; i < n.Len(); i++ {
					if n.Value(i) != int64(rows+i) {
						t.Fatalf("row %d holds n = %d", rows+i, n.Value(i))
					}
				}
				batches++
				rows += int(rec.NumRows())
				rec.Release()
			}
			if rows != streamRows || batches < streamRows/64 {
				t.Errorf("read %d rows in %d batches", rows, batches)
			}
			if _, err := src.Next(); err != io.EOF {
				t.Errorf("Next after the end = %v, want io.EOF", err)
			}
		})
	}
}

// TestCopy copies a multi-batch CSV source into sinks of every format.
func TestCopy(t *testing.T) {
	data := numbersCSV(streamRows)
	for _, tc := range []struct {
		f frame.Format
		c frame.Compression
	}{
		{frame.CSV, frame.NoCompression}, {frame.CSV, frame.XZ}, {frame.JSON, frame.Gzip},
		{frame.JSONL, frame.NoCompression}, {frame.Parquet, frame.NoCompression}, {frame.XLSX, frame.NoCompression},
	} {
		t.Run(fmt.Sprintf("%s%s", tc.f, tc.c), func(t *testing.T) {
			src, err := frame.OpenReader(strings.NewReader(data), frame.CSV, frame.NoCompression, frame.WithBatchSize(100))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var buf bytes.Buffer
			sink, err := frame.NewSink(&buf, tc.f, tc.c, src.Schema())
			if err != nil {
				t.Fatal(err)
			}
			st, err := frame.Copy(sink, src)
			if err != nil {
				t.Fatal(err)
			}
			if err := sink.Close(); err != nil {
				t.Fatal(err)
			}
			if err := sink.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if err := sink.Write(nil); err == nil {
				t.Error("Write after Close did not fail")
			}
			if st.Rows != streamRows || st.Columns != 4 || !reflect.DeepEqual(st.DTypes, numbersDTypes) || st.MemBytes <= 0 {
				t.Errorf("stats = %+v", st)
			}
			back, err := frame.OpenReader(bytes.NewReader(buf.Bytes()), tc.f, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			defer back.Close()
			got, err := frame.ReadFrom(back)
			if err != nil {
				t.Fatal(err)
			}
			checkFrame(t, got, []string{"n", "half", "label", "even"}, numbersDTypes, numbersRows(streamRows))
			// The Copy's MemBytes is the frame's.
			again, err := frame.OpenReader(strings.NewReader(data), frame.CSV, frame.NoCompression, frame.WithBatchSize(100))
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			whole, err := frame.ReadFrom(again)
			if err != nil {
				t.Fatal(err)
			}
			if st.MemBytes != whole.MemBytes() {
				t.Errorf("Copy moved %d bytes, the frame holds %d", st.MemBytes, whole.MemBytes())
			}
		})
	}
}

func TestNewSinkErrors(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, tc := range []struct {
		f    frame.Format
		c    frame.Compression
		want string
	}{
		{frame.Auto, "", "NewSink needs a format"},
		{frame.ORC, "", "ORC is not supported"},
		{frame.Parquet, frame.Zstd, "parquet: zstd compression applies to csv, json and jsonl only"},
		{frame.XLSX, frame.Gzip, "xlsx: gzip compression applies"},
		{frame.CSV, frame.Bzip2, "writing bzip2 is not supported"},
		{"yaml", "", `unknown format "yaml"`},
	} {
		_, err := frame.NewSink(io.Discard, tc.f, tc.c, schema)
		wantErr(t, err, tc.want)
	}
}

// readParquetDirect reads a Parquet file with the Arrow Parquet reader,
// not through this package.
func readParquetDirect(t *testing.T, path string) arrow.Table {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestCSVToParquet(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,price,name,day,at,flag\n")
	for i := 0; i < 5000; i++ {
		name := fmt.Sprintf("n%d", i)
		if i%7 == 0 {
			name = `"with, comma"`
		}
		price := fmt.Sprintf("%d.25", i)
		if i%10 == 3 {
			price = ""
		}
		fmt.Fprintf(&b, "%d,%s,%s,2024-01-%02d,2024-01-01T00:00:%02dZ,%t\n", i, price, name, i%28+1, i%60, i%3 == 0)
	}
	in := filepath.Join(dir, "in.csv.gz")
	src, err := frame.OpenReader(strings.NewReader(b.String()), frame.CSV, frame.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := frame.ReadFrom(src)
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := whole.Write(in, frame.Auto); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	st, err := frame.CSVToParquet(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 5000 || st.Columns != 6 || st.MemBytes <= 0 || st.MemSizeMB() <= 0 {
		t.Errorf("stats = %+v", st)
	}
	wantTypes := []frame.DType{
		{Column: "id", DType: "int64"}, {Column: "price", DType: "float64"}, {Column: "name", DType: "object"},
		{Column: "day", DType: "datetime64[ns]"}, {Column: "at", DType: "datetime64[ns]"}, {Column: "flag", DType: "bool"},
	}
	if !reflect.DeepEqual(st.DTypes, wantTypes) {
		t.Errorf("DTypes = %v", st.DTypes)
	}

	tbl := readParquetDirect(t, out)
	defer tbl.Release()
	if tbl.NumRows() != 5000 || tbl.NumCols() != 6 {
		t.Fatalf("parquet table is %d x %d", tbl.NumRows(), tbl.NumCols())
	}
	wantArrow := []string{"int64", "float64", "utf8", "date32", "timestamp[ns, tz=UTC]", "bool"}
	for i, f := range tbl.Schema().Fields() {
		if f.Name != wantTypes[i].Column || f.Type.String() != wantArrow[i] {
			t.Errorf("field %d = %s %s, want %s %s", i, f.Name, f.Type, wantTypes[i].Column, wantArrow[i])
		}
	}
	// Compare every value with the frame read from the CSV.
	tr := array.NewTableReader(tbl, 777)
	defer tr.Release()
	row := 0
	for tr.Next() {
		rec := tr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			want := whole.Row(row)
			for c := 0; c < 6; c++ {
				col := rec.Column(c)
				var got any
				if !col.IsNull(i) {
					switch a := col.(type) {
					case *array.Int64:
						got = a.Value(i)
					case *array.Float64:
						got = a.Value(i)
					case *array.String:
						got = a.Value(i)
					case *array.Date32:
						got = a.Value(i).ToTime().UTC()
					case *array.Timestamp:
						got = a.Value(i).ToTime(arrow.Nanosecond).UTC()
					case *array.Boolean:
						got = a.Value(i)
					}
				}
				if !equalValue(got, want[c]) {
					t.Fatalf("row %d column %d = %#v, want %#v", row, c, got, want[c])
				}
			}
			row++
		}
	}
	if row != 5000 {
		t.Errorf("read %d rows", row)
	}
	if names := dirEntries(t, dir); !reflect.DeepEqual(names, []string{"in.csv.gz", "out.parquet"}) {
		t.Errorf("directory holds %q", names)
	}
}

// TestConvertFailureLeavesNothing: a malformed line far into the file
// fails the conversion after batches were written; neither the output
// nor a temporary file is left, and an existing output is untouched.
func TestConvertFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	bad := numbersCSV(200000) + "1,2\n"
	if err := os.WriteFile(in, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"out.parquet", "out.jsonl", "out.xlsx.csv"} {
		out := filepath.Join(dir, name)
		_, err := frame.Convert(in, out, frame.Auto, frame.Auto)
		wantErr(t, err, "line 200002: wrong number of fields (2, want 4)")
		if _, serr := os.Stat(out); !os.IsNotExist(serr) {
			t.Errorf("%s exists after a failed conversion", name)
		}
	}
	_, err := frame.CSVToParquet(in, filepath.Join(dir, "out.parquet"))
	wantErr(t, err, "line 200002")
	if names := dirEntries(t, dir); !reflect.DeepEqual(names, []string{"in.csv"}) {
		t.Errorf("directory holds %q", names)
	}
	// An existing output survives a failed conversion.
	out := filepath.Join(dir, "keep.parquet")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := frame.CSVToParquet(in, out); err == nil {
		t.Fatal("no error")
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Errorf("output was replaced by %d bytes", len(b))
	}
	if names := dirEntries(t, dir); !reflect.DeepEqual(names, []string{"in.csv", "keep.parquet"}) {
		t.Errorf("directory holds %q", names)
	}
}

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.gz")
	src, err := frame.FromRows([]string{"n", "half", "label", "even"}, numbersRows(300))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Write(in, frame.Auto); err != nil {
		t.Fatal(err)
	}
	prev := in
	for _, name := range []string{"a.parquet", "b.xlsx", "c.csv.zst", "d.json", "e.dat"} {
		out := filepath.Join(dir, name)
		to := frame.Auto
		if name == "e.dat" {
			to = frame.CSV
		}
		st, err := frame.Convert(prev, out, frame.Auto, to)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Rows != 300 || !reflect.DeepEqual(st.DTypes, numbersDTypes) {
			t.Errorf("%s: stats = %+v", name, st)
		}
		got, err := frame.Read(out, to)
		if err != nil {
			t.Fatal(err)
		}
		checkFrame(t, got, []string{"n", "half", "label", "even"}, numbersDTypes, numbersRows(300))
		prev = out
	}
	_, err = frame.Convert(filepath.Join(dir, "missing.csv"), filepath.Join(dir, "x.parquet"), frame.Auto, frame.Auto)
	wantErr(t, err, "missing.csv")
	_, err = frame.Convert(in, filepath.Join(dir, "x.unknown"), frame.Auto, frame.Auto)
	wantErr(t, err, "cannot tell the format of")
	_, err = frame.Convert(in, filepath.Join(dir, "x.csv.bz2"), frame.Auto, frame.Auto)
	wantErr(t, err, "bzip2 is not supported")
	for _, n := range dirEntries(t, dir) {
		if strings.Contains(n, "tmp") || strings.HasPrefix(n, "x.") {
			t.Errorf("left behind: %s", n)
		}
	}
}
