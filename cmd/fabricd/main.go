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

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr, nil))
}

// stopper is closed by tests to stop run as a signal would.
type stopper <-chan struct{}
