// Package gctune sets the Go collector's target from the live heap: lazy
// (collecting at a multiple of a small live heap, which saves the
// collector's CPU) while the heap that lets grow stays under a cap, and
// no lazier than Go's default above it, so that the memory the laziness
// costs is bounded by the cap whatever the workload. GOGC, when set, is
// left alone.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
)

// Percent is the collector's target for a live heap of live bytes: at
// most lazyPercent, so that the heap goal (live * (1 + percent/100))
// stays at most goalCap bytes, and never under Go's default of 100.
func Percent(live uint64, lazyPercent int, goalCap uint64) int {
	if live == 0 {
		return lazyPercent
	}
	p := 100
	if live < goalCap {
		// The largest percent whose goal fits the cap.
		p = int((goalCap - live) * 100 / live)
	}
	return max(100, min(p, lazyPercent))
}

// Tune collects at Percent(live heap, lazyPercent, goalCap), re-reading
// the live heap after each collection.
func Tune(lazyPercent int, goalCap uint64) {
	if os.Getenv("GOGC") != "" {
		return
	}
	current := Percent(0, lazyPercent, goalCap)
	debug.SetGCPercent(current)
	// A finalizer runs once per cycle that frees its object: each one
	// reads the live heap the cycle left and arms the next.
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			// The heap just after a collection: the live heap, and the
			// garbage not swept yet, which errs toward Go's default.
			// (runtime/metrics reads the live heap exactly, but its
			// package start costs every client start 0.1 ms.)
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if p := Percent(ms.HeapAlloc, lazyPercent, goalCap); p != current {
				current = p
				debug.SetGCPercent(p)
			}
			arm()
		})
	}
	arm()
}
