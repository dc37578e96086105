package frame

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// writeBenchCSV writes a CSV of rows rows and 10 columns (ints, floats,
// strings, timestamps, dates, bools), about 100 bytes a row.
func writeBenchCSV(tb testing.TB, path string, rows int) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rnd := rand.New(rand.NewPCG(1, 2))
	cities := []string{"Paris", "Lyon", "Berlin", "New York", "Tokyo", "São Paulo", "Lagos", "Sydney"}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	fmt.Fprintln(w, "id,qty,price,ratio,name,city,ts,day,flag,note")
	var b []byte
	for i := 0; i < rows; i++ {
		b = b[:0]
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(rnd.IntN(1000)), 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, float64(rnd.IntN(1000000))/100, 'f', 2, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, rnd.Float64(), 'f', 6, 64)
		b = append(b, ",customer_"...)
		b = strconv.AppendInt(b, int64(rnd.IntN(50000)), 10)
		b = append(b, ',')
		b = append(b, cities[rnd.IntN(len(cities))]...)
		b = append(b, ',')
		b = base.Add(time.Duration(rnd.IntN(365*86400))*time.Second).AppendFormat(b, "2006-01-02T15:04:05")
		b = append(b, ',')
		b = base.AddDate(0, 0, rnd.IntN(365)).AppendFormat(b, "2006-01-02")
		b = append(b, ',')
		b = strconv.AppendBool(b, rnd.IntN(2) == 0)
		switch rnd.IntN(10) {
		case 0:
			b = append(b, `,"said ""hi"", then left"`...)
		case 1:
			b = append(b, ',')
		default:
			b = append(b, ",ok"...)
		}
		b = append(b, '\n')
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	return st.Size()
}

func BenchmarkCSVToParquet(b *testing.B) {
	rows := 1_000_000
	if testing.Short() {
		rows = 100_000
	}
	dir := b.TempDir()
	in := filepath.Join(dir, "in.csv")
	size := writeBenchCSV(b, in, rows)
	out := filepath.Join(dir, "out.parquet")
	b.SetBytes(size)
	b.ResetTimer()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if h := ms.HeapInuse; h > peak.Load() {
				peak.Store(h)
			}
		}
	}()
	for i := 0; i < b.N; i++ {
		st, err := CSVToParquet(in, out)
		if err != nil {
			b.Fatal(err)
		}
		if st.Rows != int64(rows) {
			b.Fatalf("rows = %d, want %d", st.Rows, rows)
		}
	}
	b.StopTimer()
	close(done)
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	if st, err := os.Stat(out); err == nil {
		b.ReportMetric(float64(st.Size())/(1<<20), "parquet-MiB")
	}
}

// BenchmarkConvertText measures the conversion of tokenized CSV text into
// typed columns (convertText), the per-row hot path of a CSV read, apart
// from I/O and Parquet encoding.
func BenchmarkConvertText(b *testing.B) {
	const rows = DefaultBatchSize
	path := filepath.Join(b.TempDir(), "in.csv")
	writeBenchCSV(b, path, rows)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	tok := &tokenizer{}
	var head textBatch
	p, line, terr := tok.tokenize(data, 0, 1, 1, &head)
	if terr != nil {
		b.Fatal(terr.msg)
	}
	names := make([]string, tok.ncols)
	for i := range names {
		names[i] = string(head.field(0, i))
	}
	batch := &textBatch{ncols: tok.ncols}
	if _, _, terr := tok.tokenize(data, p, line, rows, batch); terr != nil {
		b.Fatal(terr.msg)
	}
	cols := inferText(names, batch)
	schema := textSchema(cols)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec, cerr := convertText(schema, cols, batch)
		if cerr != nil {
			b.Fatalf("row %d, column %d: %q", cerr.row, cerr.col, cerr.value)
		}
		rec.Release()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
