package lazy_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/fabricops/fabric/fabric/lib/cfxql/cfxarrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// TestFilterWithinMemoryLimit filters a table several times larger than
// the memory limit the process is given (GOMEMLIMIT, set here with
// debug.SetMemoryLimit) and writes the result as Parquet; the memory the
// Go runtime holds, sampled throughout, never exceeds the limit.
func TestFilterWithinMemoryLimit(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes a 400 MB table; measures memory (not under the race detector)")
	}
	const (
		limit = 128 << 20
		rows  = 1_500_000
	)
	path, size := writeWide(t, rows)
	if size < 3*limit {
		t.Fatalf("the table is %d MB in memory, want at least 3x the limit", size>>20)
	}
	q := cfxarrow.MustParse("status is 'CRIT' and cpu > 50")
	tab := lazy.New(lazy.NewFile(path, frame.Parquet)).Filter(q)

	runtime.GC()
	debug.FreeOSMemory()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	stop := sampleMemory()
	src, err := tab.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sink, err := frame.NewSink(io.Discard, frame.Parquet, frame.NoCompression, src.Schema())
	if err != nil {
		t.Fatal(err)
	}
	n, err := frame.Copy(sink, src)
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	src.Close()
	high := stop()
	if err != nil {
		t.Fatal(err)
	}
	if n.Rows == 0 || n.Rows > rows/4 {
		t.Fatalf("%d rows matched", n.Rows)
	}
	t.Logf("%d MB table in memory, %d rows out; peak Go memory %d MB (limit %d MB)", size>>20, n.Rows, high>>20, limit>>20)
	if high > limit {
		t.Errorf("peak Go memory %d MB, over the %d MB limit", high>>20, limit>>20)
	}
}

// writeWide writes rows rows with a long message each, streamed in
// batches; it returns the path and the table's size in memory.
func writeWide(t *testing.T, rows int) (string, int64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "status", Type: arrow.BinaryTypes.String},
		{Name: "cpu", Type: arrow.PrimitiveTypes.Float64},
		{Name: "message", Type: arrow.BinaryTypes.String},
	}, nil)
	path := filepath.Join(t.TempDir(), "wide.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sink, err := frame.NewSink(f, frame.Parquet, frame.NoCompression, schema)
	if err != nil {
		t.Fatal(err)
	}
	states := []string{"OK", "WARN", "CRIT", "OK"}
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 8)
	var size int64
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for start := 0; start < rows; start += frame.DefaultBatchSize {
		for i := start; i < min(rows, start+frame.DefaultBatchSize); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.StringBuilder).Append(states[i%4])
			b.Field(2).(*array.Float64Builder).Append(float64(i*7%100) + 0.5)
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("event %d from host-%d: %s", i, i%977, pad))
		}
		rec := b.NewRecord()
		for _, c := range rec.Columns() {
			for _, buf := range c.Data().Buffers() {
				if buf != nil {
					size += int64(buf.Len())
				}
			}
		}
		if err := sink.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	return path, size
}

// sampleMemory samples the memory the Go runtime holds (mapped, less what
// it gave back) every millisecond until stop, which returns the highest.
func sampleMemory() (stop func() uint64) {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	var high uint64
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			held := samples[0].Value.Uint64() - samples[1].Value.Uint64()
			mu.Lock()
			high = max(high, held)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return high
	}
}
