package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestPercent: lazy while the goal fits the cap, less lazy as the live
// heap nears it, Go's default from there on.
func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 400}, {1 * mb, 400}, {12 * mb, 400}, {16 * mb, 300}, {20 * mb, 220}, {32 * mb, 100}, {50 * mb, 100}, {1 << 40, 100},
	} {
		if got := Percent(tc.live, 400, 64*mb); got != tc.want {
			t.Errorf("Percent(%d MB, 400, 64 MB) = %d, want %d", tc.live/mb, got, tc.want)
		}
	}
}

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
