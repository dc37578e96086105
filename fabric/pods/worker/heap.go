package worker

import (
	"runtime/metrics"

	"github.com/fabricops/fabric/fabric/lib/botpkg"
)

// A worker watches its bots' memory without stopping the world: it reads
// the heap from runtime/metrics (botpkg's default reads runtime.MemStats,
// so that the shell need not link runtime/metrics).
func init() { botpkg.HeapReader = metricsHeap }

// metricsHeap returns the bytes of the heap's objects and of the live
// heap as of the last collection.
func metricsHeap() (objects, live int64) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(samples)
	return int64(samples[0].Value.Uint64()), int64(samples[1].Value.Uint64())
}
