package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestGCTuned: the data build starts with the lazy collector target, as
// the lean build does, unless GOGC says otherwise.
func TestGCTuned(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: the build leaves the collector alone")
	}
	p := debug.SetGCPercent(100)
	defer debug.SetGCPercent(p)
	if p != 400 {
		t.Fatalf("GC percent at start %d, want 400", p)
	}
}
