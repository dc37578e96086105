//go:build lean

package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The lean client's heap is small by construction (data goes to
// client-data), and it spends its time waiting on the fabric between
// small allocations: there, collecting at 5x the live heap instead of 2x
// costs a few MB and saves the collector's CPU and wake-ups (about 6% of
// a loop of artifact adds and gets). A workflow that grows a large heap
// gets Go's default back, so memory stays bounded as usual. GOGC, when
// set, is left alone.
func init() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(gcPercent(0))
	watchGC()
}

// smallHeap is the live heap up to which the lean client collects lazily.
const smallHeap = 64 << 20

// gcPercent is the collector's target for a live heap of live bytes.
func gcPercent(live uint64) int {
	if live <= smallHeap {
		return 400
	}
	return 100
}

// watchGC sets the target again after each collection, from the live
// heap it left (a finalizer runs once per cycle that frees its object).
func watchGC() {
	current := gcPercent(0)
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if p := gcPercent(sample[0].Value.Uint64()); p != current {
					current = p
					debug.SetGCPercent(p)
				}
			}
			arm()
		})
	}
	arm()
}
