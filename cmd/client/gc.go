package main

import "github.com/fabricops/fabric/fabric/lib/gctune"

// The lean client's heap is small (its data goes to client-data): a small
// heap collected at up to 5x instead of 2x, while the heap it lets grow
// stays under 64 MiB, costs a few MB and saves the collector's CPU and
// wake-ups (about 6% of a loop of artifact adds and gets; a third of a
// graph load's client CPU). A workflow with a larger live heap collects
// as at Go's default.
func init() { gctune.Tune(400, 64<<20) }
