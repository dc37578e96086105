package main

import "github.com/fabricops/fabric/fabric/lib/gctune"

// As the lean client (cmd/client/gc.go): a small heap is collected at 5x
// instead of 2x. The data build runs every command the lean one hands
// over, most with a small heap, and at Go's default it collected several
// times a command: a third of the CPU a pipeline run (client
// run-get-output) spends in this process past its start. A workflow whose
// live heap grows past 64 MiB gets Go's default back.
func init() { gctune.Tune(400, 64<<20) }
