package graphdb_test

import (
	"context"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
)

// openFiles is the number of the process's open file descriptors.
func openFiles(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	return len(ents)
}

// TestHostileIdleConnections: a tenant that opens a thousand connections
// to its graph database and sends nothing holds at most the server's
// connection limit of the process's file descriptors (the rest wait in
// the kernel's queue), so it cannot take the descriptors every tenant's
// NATS connection needs; the other tenant's queries are answered as
// usual throughout.
func TestHostileIdleConnections(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.GraphDB}})
	victim, attacker := f.Configs["a"].GraphDB, f.Configs["b"].GraphDB
	u, err := url.Parse(attacker.URL)
	if err != nil {
		t.Fatal(err)
	}
	before := openFiles(t)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	const attack = 1000
	for range attack {
		c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
		if err != nil {
			break // the kernel's queue is full: refused there, not here
		}
		conns = append(conns, c)
	}
	// The test's own ends of the connections are descriptors of this
	// process too: count the server's side as what grew beyond them.
	deadline := time.Now().Add(5 * time.Second)
	var held int
	for {
		held = openFiles(t) - before - len(conns)
		if held >= graphdb.DefaultMaxConnections || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if held > graphdb.DefaultMaxConnections+16 {
		t.Errorf("the server holds %d descriptors for %d idle connections, over its limit of %d", held, len(conns), graphdb.DefaultMaxConnections)
	}
	for i := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		a, err := query(ctx, victim, map[string]any{"query": "RETURN 1 + 1"})
		cancel()
		if err != nil || a.Error || len(a.Result) != 1 {
			t.Fatalf("the other tenant's query %d: %+v, %v", i, a, err)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("the other tenant waited %v", took)
		}
	}
	t.Logf("%d idle connections opened; the server holds %d descriptors for them", len(conns), held)
}
