// Package gctune sets the Go collector's target from the live heap: lazy
// (collecting at a multiple of a small live heap, which costs a little
// memory and saves the collector's CPU) while the heap is small, Go's
// default once it is not, so that memory stays bounded as usual. GOGC,
// when set, is left alone.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Tune collects at lazyPercent while the live heap is at most smallHeap
// bytes, at Go's default (100) above. It re-reads the live heap after
// each collection.
func Tune(lazyPercent int, smallHeap uint64) {
	if os.Getenv("GOGC") != "" {
		return
	}
	percent := func(live uint64) int {
		if live <= smallHeap {
			return lazyPercent
		}
		return 100
	}
	current := percent(0)
	debug.SetGCPercent(current)
	// A finalizer runs once per cycle that frees its object: each one
	// reads the live heap the cycle left and arms the next.
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if p := percent(sample[0].Value.Uint64()); p != current {
					current = p
					debug.SetGCPercent(p)
				}
			}
			arm()
		})
	}
	arm()
}
