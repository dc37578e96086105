package main

import "github.com/fabricops/fabric/fabric/lib/gctune"

// The client's heap is small but for large frames: the lean client's data
// goes to client-data, and client-data streams its loads and copies. A
// small heap collected at 5x instead of 2x costs a few MB and saves the
// collector's CPU and wake-ups (about 6% of a loop of artifact adds and
// gets; a third of a graph load's client CPU). A workflow that grows a
// large heap gets Go's default back.
func init() { gctune.Tune(400, 64<<20) }
