package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestTune: the lazy target while the live heap is small, Go's default
// once a collection finds it larger, and GOGC left alone when set.
func TestTune(t *testing.T) {
	defer debug.SetGCPercent(100)
	t.Setenv("GOGC", "")
	Tune(400, 1<<40)
	if p := debug.SetGCPercent(400); p != 400 {
		t.Fatalf("small heap: GC percent %d, want 400", p)
	}
	Tune(300, 1) // every heap is large: the next collection sets 100
	for i := 0; i < 50; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if p := debug.SetGCPercent(100); p == 100 {
			break
		} else if i == 49 {
			t.Fatalf("large heap: GC percent %d after collections, want 100", p)
		} else {
			debug.SetGCPercent(p)
		}
	}
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	Tune(400, 1<<40)
	if p := debug.SetGCPercent(100); p != 50 {
		t.Fatalf("GOGC set: GC percent %d, want it left at 50", p)
	}
}
