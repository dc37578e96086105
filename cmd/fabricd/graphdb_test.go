package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/client/graph"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/fabric/pods/runner"
)

// startLocal runs "fabricd local" in home as a process and waits until
// it is ready; it returns the process and the tenant's graphdb section.
func startLocal(t *testing.T, bin, home string, log *bytes.Buffer) (*exec.Cmd, bus.GraphDBConfig) {
	t.Helper()
	d := exec.Command(bin, "local", "--home", home, "--workers", "1")
	d.Env = append(os.Environ(), "FABRIC_HOME="+home)
	d.Stdout, d.Stderr = log, log
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st, _ := local.Status(home); st != nil && st.PID == d.Process.Pid {
			break
		}
		if time.Now().After(deadline) {
			d.Process.Kill()
			t.Fatalf("the local fabric was not ready in 30s:\n%s", log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cfg, err := bus.LoadConfig(local.TenantConfigPath(home, local.DefaultTenant))
	if err != nil {
		t.Fatal(err)
	}
	return d, cfg.GraphDB
}

// TestGraphDBSurvivesKill: the local fabric's graph database keeps every
// batch it acknowledged when its process is killed (SIGKILL) in the middle
// of a bulk insert, and everything across a graceful stop and start, with
// the same address and credentials.
func TestGraphDBSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills fabricd")
	}
	bin := fabricdBinary(t)
	home := t.TempDir()
	var dlog bytes.Buffer
	d, cfg := startLocal(t, bin, home, &dlog)
	defer func() { d.Process.Kill(); d.Wait() }()
	ctx := context.Background()
	g, err := graph.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CreateDatabase(ctx, "inv"); err != nil {
		t.Fatal(err)
	}
	if err := g.CreateCollection(ctx, "inv", "nodes", false); err != nil {
		t.Fatal(err)
	}
	db, err := g.Driver().GetDatabase(ctx, "inv", nil)
	if err != nil {
		t.Fatal(err)
	}
	col, err := db.GetCollection(ctx, "nodes", nil)
	if err != nil {
		t.Fatal(err)
	}

	// Batches of 500 documents, one after another; the fabric is killed
	// while they flow. Every batch the server answered must be there.
	const batchSize = 500
	acked := make(chan int, 1000)
	go func() {
		defer close(acked)
		for n := 0; ; n++ {
			docs := make([]map[string]any, batchSize)
			for i := range docs {
				docs[i] = map[string]any{"_key": fmt.Sprintf("b%05d-%03d", n, i), "batch": n, "payload": "some text to make the write-ahead log work"}
			}
			r, err := col.CreateDocuments(ctx, docs)
			if err != nil {
				return
			}
			for {
				if _, err := r.Read(); err != nil {
					break
				}
			}
			acked <- n
		}
	}()
	var last = -1
	for last < 20 {
		n, ok := <-acked
		if !ok {
			t.Fatalf("inserts failed before the kill:\n%s", dlog.String())
		}
		last = n
	}
	if err := d.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	for n := range acked {
		last = n
	}
	local.RemoveState(home) // what 'client fabric up' does for a dead fabric

	d, cfg2 := startLocal(t, bin, home, &dlog)
	if cfg2 != cfg {
		t.Fatalf("the graph database moved after a restart: %+v, was %+v", cfg2, cfg)
	}
	count := func() int {
		t.Helper()
		n := 0
		if _, err := g.AQL(ctx, "inv", "RETURN LENGTH(nodes)", nil, func(raw json.RawMessage) bool {
			if err := json.Unmarshal(raw, &n); err != nil {
				t.Fatal(err)
			}
			return true
		}); err != nil {
			t.Fatalf("after the restart: %v\n%s", err, dlog.String())
		}
		return n
	}
	for b := 0; b <= last; b++ {
		for _, i := range []int{0, batchSize - 1} {
			if _, err := col.ReadDocument(ctx, fmt.Sprintf("b%05d-%03d", b, i), new(map[string]any)); err != nil {
				t.Fatalf("document %d of acknowledged batch %d (of %d) lost in the kill: %v", i, b, last+1, err)
			}
		}
	}
	n := count()
	if n < (last+1)*batchSize || n%batchSize != 0 {
		t.Fatalf("%d documents after the kill: want the %d of the %d acknowledged batches (and whole batches only)", n, (last+1)*batchSize, last+1)
	}
	t.Logf("%d batches acknowledged before the kill, %d documents after it", last+1, n)

	// A graceful stop and start keeps everything too.
	if err := d.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := d.Wait(); err != nil {
		t.Fatalf("graceful stop: %v\n%s", err, dlog.String())
	}
	d, _ = startLocal(t, bin, home, &dlog)
	if m := count(); m != n {
		t.Fatalf("%d documents after a graceful restart, want %d", m, n)
	}
}

// TestGraphDBPodInProduction: fabricd's settings for a graphdb pod
// (--pods graphdb --graphdb-dir --graphdb-listen, credentials from the
// environment with --nats) run a graph database that the client reaches
// at that address with those credentials, and with no others.
func TestGraphDBPodInProduction(t *testing.T) {
	tenant, err := bus.NewTenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	url := startNATS(t, tenant)
	listen := fmt.Sprintf("127.0.0.1:%d", fabrictest.Ports(t, "tcp", 1)[0])
	t.Setenv("FABRIC_PASSWORD", tenant.Password)
	t.Setenv("FABRIC_GRAPHDB_USER", "inventory")
	t.Setenv("FABRIC_GRAPHDB_PASSWORD", "s3cret-graph")
	s, err := parseArgs([]string{"--nats", url, "--tenant", "acme", "--user", "acme", "--pods", "graphdb",
		"--graphdb-dir", t.TempDir(), "--graphdb-listen", listen}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := s.options()
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	ctx := context.Background()
	g, err := graph.Open(bus.GraphDBConfig{URL: "http://" + listen, User: "inventory", Password: "s3cret-graph"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CreateDatabase(ctx, "sites"); err != nil {
		t.Fatal(err)
	}
	if dbs, err := g.Databases(ctx); err != nil || len(dbs) != 2 {
		t.Fatalf("databases: %v %v", dbs, err)
	}
	bad, _ := graph.Open(bus.GraphDBConfig{URL: "http://" + listen, User: "inventory", Password: "wrong"})
	if _, err := bad.Databases(ctx); err == nil {
		t.Fatal("a wrong password was let in")
	}
}
