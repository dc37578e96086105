package scheduler

import (
	"fmt"
	"testing"
)

// TestTakenIsBounded: a placer takes a request id once, and remembers at
// most maxSeen ids whatever a tenant sends (the oldest forgotten first).
func TestTakenIsBounded(t *testing.T) {
	pl := NewPlacer(nil, func() bool { return true }, nil, PlacerOptions{})
	if pl.taken("a") || !pl.taken("a") {
		t.Fatal("a request id is not taken once")
	}
	for i := range 3 * maxSeen {
		pl.taken(fmt.Sprintf("flood-%d", i))
	}
	if len(pl.seen) != maxSeen || len(pl.seenOrder) != maxSeen {
		t.Fatalf("%d ids remembered (%d in order), want at most %d", len(pl.seen), len(pl.seenOrder), maxSeen)
	}
	if !pl.taken(fmt.Sprintf("flood-%d", 3*maxSeen-1)) || pl.taken("a") {
		t.Fatal("the newest ids are not remembered, or the oldest not forgotten")
	}
}
