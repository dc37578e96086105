package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/nats-io/nats.go"
)

// useTenant makes the tenant tn at url the client's (a network
// configuration in a FABRIC_HOME of the test) and returns a connection
// of the test's own, closed when the test ends.
func useTenant(t *testing.T, tn bus.Tenant, url, name string) *nats.Conn {
	t.Helper()
	cfg := &bus.Config{Tenant: tn.Name, NATS: bus.NATSConfig{URLs: []string{url}, User: tn.User, Password: tn.Password}}
	home := t.TempDir()
	t.Setenv("FABRIC_HOME", home)
	path := filepath.Join(home, tn.Name+".json")
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FABRIC_NETWORK_CONFIG", path)
	nc, err := bus.Connect(cfg, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// waiter waits for conditions of a fabric of hosts, failing the test
// with the hosts' logs when one does not hold in time.
type waiter struct {
	t     *testing.T
	hosts *[]*host
}

// dump is every host's log.
func (w waiter) dump() string {
	var b strings.Builder
	for _, h := range *w.hosts {
		fmt.Fprintf(&b, "--- %s\n%s", h.name, h.log.String())
	}
	return b.String()
}

// wait polls cond until it holds, at most timeout.
func (w waiter) wait(timeout time.Duration, what string, cond func() (bool, string)) {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("timed out after %s waiting for %s: %s\n%s", timeout, what, state, w.dump())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
