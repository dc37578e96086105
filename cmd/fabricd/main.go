// Command fabricd runs fabric pods on a production host, against an
// existing NATS cluster:
//
//	fabricd --network-config FILE --pods api-server,scheduler,worker,worker,event-gateway --site NAME
//	fabricd --nats nats://host:4222 --tenant acme --user acme --pods worker --site dc1   (password in FABRIC_PASSWORD)
//	fabricd --config fabricd.yaml
//	fabricd local --tenants a,b --workers 2   (the local fabric: client fabric up starts it)
//
// It stops its pods gracefully on SIGTERM or SIGINT.
package main

import (
	"os"

	"github.com/fabricops/fabric/fabric/lib/cpuprofile"
	"github.com/fabricops/fabric/fabric/lib/gctune"
)

func main() {
	// The pods' heaps are small but for bulk writes to the graph store,
	// whose documents are short-lived: collecting at up to 4x the live
	// heap, while the heap that lets grow stays under 512 MiB (as at Go's
	// default past it), halves the collector's share of a load (2M edges:
	// 26 s -> 20 s in-process).
	gctune.Tune(300, 512<<20)
	stop := cpuprofile.Start("FABRICD_CPUPROFILE")
	code := run(os.Args[1:], os.Stderr, nil)
	stop()
	os.Exit(code)
}

// stopper is closed by tests to stop run as a signal would.
type stopper <-chan struct{}
