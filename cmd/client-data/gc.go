package main

import "github.com/fabricops/fabric/fabric/lib/gctune"

// As the lean client (cmd/client/gc.go), a small heap is collected at up
// to 5x instead of 2x: the data build runs every command the lean one
// hands over, most with a small heap, and at Go's default it collected
// several times a command (a third of the CPU of a pipeline run, client
// run-get-output, past its start). The laziness is capped by the heap it
// lets grow, 32 MiB, not by the live heap: a streaming load or filter,
// whose live heap is tens of MB, collects as at Go's default and keeps
// its peak memory flat (collecting at 5x below 64 MiB live let it reach
// 1.3-1.5x DuckDB's whole process).
func init() { gctune.Tune(400, 32<<20) }
