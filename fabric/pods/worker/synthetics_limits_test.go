package worker_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/synthetics"
	"github.com/fabricops/fabric/fabric/pods/worker"
)

// stackOf is a stack of n components at addr.
func stackOf(name string, n int, addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\ncomponents:\n", name)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - {name: c%d, type: service, host: %s, port: %s}\n", i, host, port)
	}
	return b.String()
}

// TestSyntheticsBounds: a worker runs at most MaxRunningProbes probes at
// once, and the tenant's workers run at most MaxTenantChecks checks (the
// profiles past them, by name, are not run).
func TestSyntheticsBounds(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	var mu sync.Mutex
	running, most := 0, 0
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(time.Second)
		mu.Lock()
		running--
		mu.Unlock()
	}))
	defer slow.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Data.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := &artifact.Repo{Store: st}
	add := func(k *artifact.Kind, text string) {
		t.Helper()
		if _, err := r.Add(ctx, k, []byte(text), false); err != nil {
			t.Fatal(err)
		}
	}
	status, err := synthetics.OpenStatus(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	count := func(profile string) int {
		rs, err := status.Last(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rs {
			if profile == "" || r.Profile == profile {
				n++
			}
		}
		return n
	}
	waitCount := func(profile string, n int) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for count(profile) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d results of %q, want %d", count(profile), profile, n)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}

	// 40 slow checks: never more than MaxRunningProbes at once.
	add(artifact.Stack, stackOf("slow", 40, strings.TrimPrefix(slow.URL, "http://")))
	add(artifact.Synthetics, "name: slow\nstack: slow\nprobes:\n  - {name: all, type: http, interval_seconds: 60}\n")
	waitCount("slow", 40)
	mu.Lock()
	if most > worker.MaxRunningProbes || most < 2 {
		t.Errorf("%d probes ran at once, want 2 to %d", most, worker.MaxRunningProbes)
	}
	mu.Unlock()
	if err := r.Delete(ctx, artifact.Synthetics, "slow"); err != nil {
		t.Fatal(err)
	}

	// Five profiles of 200 checks each make the tenant's 1,000; a sixth,
	// last by name, is not run.
	add(artifact.Stack, stackOf("big", 200, closed))
	for i := 0; i < worker.MaxTenantChecks/200; i++ {
		add(artifact.Synthetics, fmt.Sprintf("name: p%d\nstack: big\nprobes:\n  - {name: all, type: tcp, interval_seconds: 60}\n", i))
	}
	add(artifact.Synthetics, "name: z-over\nstack: big\nprobes:\n  - {name: one, type: tcp, component: c0, interval_seconds: 5}\n")
	waitCount("", worker.MaxTenantChecks)
	time.Sleep(2 * worker.SyntheticsReload)
	if n := count("z-over"); n != 0 {
		t.Errorf("the profile past the tenant's %d checks ran %d checks", worker.MaxTenantChecks, n)
	}
}
