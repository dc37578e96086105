package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client/graph"
	clientlocal "github.com/fabricops/fabric/fabric/client/local"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/local"
)

// up starts the local fabric in home as "client fabric up" does and
// stops it when the test ends.
func up(t *testing.T, bin, home string, tenants ...string) *local.State {
	t.Helper()
	st, started, err := clientlocal.Up(home, clientlocal.UpOptions{Daemon: bin, Workers: 1, Tenants: tenants})
	if err != nil {
		t.Fatalf("fabric up: %v", err)
	}
	if !started {
		t.Fatalf("fabric up found a fabric running (pid %d)", st.PID)
	}
	t.Cleanup(func() { _, _ = clientlocal.Down(home) })
	return st
}

// waitState waits until the local fabric in home runs and returns its
// state.
func waitState(t *testing.T, home string) *local.State {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if st, _ := local.Status(home); st != nil {
			return st
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the local fabric in %s did not start in 60s", home)
	return nil
}

// TestHostileUpAfterKill: "fabric up" 0.2 s after a kill -9 of the local
// fabric starts a new one: the dead process (a zombie until its new
// parent reaps it, or ending) does not run the fabric. The fabric is
// started as the client leaves it: in its own session, its parent gone.
func TestHostileUpAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills fabricd")
	}
	bin := fabricdBinary(t)
	home := t.TempDir()
	t.Cleanup(func() { _, _ = clientlocal.Down(home) })
	sh := fmt.Sprintf("setsid %q local --home %q --workers 1 >>%q 2>&1 &", bin, home, filepath.Join(home, "first.log"))
	if out, err := exec.Command("sh", "-c", sh).CombinedOutput(); err != nil {
		t.Fatalf("sh: %v: %s", err, out)
	}
	pid := waitState(t, home).PID
	for round := 1; round <= 3; round++ {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		begin := time.Now()
		st, started, err := clientlocal.Up(home, clientlocal.UpOptions{Daemon: bin, Workers: 1})
		t.Logf("round %d: fabric up took %s", round, time.Since(begin).Round(time.Millisecond))
		if err != nil || !started || st.PID == pid {
			t.Fatalf("round %d: fabric up 0.2 s after kill -9 of pid %d: started %v, %+v, %v", round, pid, started, st, err)
		}
		pid = st.PID
	}
}

// TestFabricHomePrivate: after a start and writes (a graph database, a
// file of the graph store), every file the fabric wrote under
// FABRIC_HOME is its owner's only (0600) and every directory 0700.
func TestFabricHomePrivate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fabricd")
	}
	bin := fabricdBinary(t)
	home := t.TempDir()
	up(t, bin, home)
	cfg, err := bus.LoadConfig(local.TenantConfigPath(home, local.DefaultTenant))
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Open(cfg.GraphDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CreateDatabase(context.Background(), "inv"); err != nil {
		t.Fatal(err)
	}
	if _, err := clientlocal.Down(home); err != nil {
		t.Fatal(err)
	}
	var checked int
	err = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == home {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", strings.TrimPrefix(path, home), info.Mode().Perm(), want)
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("only %d files under FABRIC_HOME", checked)
	}
}

// TestHostileUpOnFullDisk: FABRIC_HOME on a disk that fills while the
// local fabric runs: a tenant's write to its graph database fails in one
// line (ArangoDB's "filesystem full"), the process keeps serving (the
// other tenant's graph database answers) and stops cleanly; "fabric up"
// on the full disk says so in one line (nats-server would panic writing
// its store); once space is freed the fabric starts with its data.
func TestHostileUpOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fabricd")
	}
	bin := fabricdBinary(t)
	home := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs", home).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root): %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", home).Run() })
	st := up(t, bin, home, "a", "b")
	ctx := context.Background()
	graphOf := func(tenant string) *graph.Conn {
		cfg, err := bus.LoadConfig(local.TenantConfigPath(home, tenant))
		if err != nil {
			t.Fatal(err)
		}
		g, err := graph.Open(cfg.GraphDB)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	a, b := graphOf("a"), graphOf("b")
	if err := a.CreateDatabase(ctx, "kept"); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateCollection(ctx, "kept", "docs", false); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(home, "filler")
	_ = exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=1M", "count=64").Run() // until the disk is full

	db, err := a.Driver().GetDatabase(ctx, "kept", nil)
	if err != nil {
		t.Fatal(err)
	}
	col, err := db.GetCollection(ctx, "docs", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = col.CreateDocument(ctx, map[string]any{"_key": "late", "pad": strings.Repeat("x", 4<<10)})
	if !shared.IsArangoErrorWithErrorNum(err, 1104) || !strings.Contains(err.Error(), "disk full") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a write to the graph database on a full disk: %v; want ArangoDB's filesystem full in one line", err)
	}
	t.Logf("a write on a full disk: %v", err)
	if _, err := b.Driver().GetDatabase(ctx, "_system", nil); err != nil {
		t.Fatalf("the other tenant's graph database with the disk full: %v", err)
	}
	if now, _ := local.Status(home); now == nil || now.PID != st.PID {
		t.Fatalf("the local fabric (pid %d) ended with the disk full", st.PID)
	}
	if _, err := clientlocal.Down(home); err != nil {
		t.Fatalf("fabric down on a full disk: %v", err)
	}

	_, _, err = clientlocal.Up(home, clientlocal.UpOptions{Daemon: bin, Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "disk is too full") || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("fabric up on a full disk: %v; want one line saying the disk is full", err)
	}
	t.Logf("fabric up on a full disk: %v", err)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	up(t, bin, home)
	if _, err := a.Driver().GetDatabase(ctx, "kept", nil); err != nil {
		t.Fatalf("the graph database made before the disk filled: %v", err)
	}
}

// TestHostileHundredTenants: "fabric up --tenants t1,...,t100" starts
// (JetStream's reservations of 100 tenants fit the host), and "pods" of
// the last tenant answers.
func TestHostileHundredTenants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fabricd and starts 100 tenants")
	}
	bin := fabricdBinary(t)
	home := t.TempDir()
	tenants := make([]string, 100)
	for i := range tenants {
		tenants[i] = fmt.Sprintf("t%d", i+1)
	}
	start := time.Now()
	st := up(t, bin, home, tenants...)
	t.Logf("100 tenants started in %s, resident memory %s", time.Since(start).Round(time.Millisecond), resident(st.PID))
	t.Setenv("FABRIC_HOME", home)
	t.Setenv("FABRIC_NETWORK_CONFIG", local.TenantConfigPath(home, "t100"))
	types := map[string]int{}
	for _, p := range clientPods(t) {
		types[p.PodType]++
	}
	for _, want := range []string{api.APIServer, api.Scheduler, api.Worker, api.GraphDB} {
		if types[want] == 0 {
			t.Errorf("pods of t100: no %s (%v)", want, types)
		}
	}
}

// resident is a process's resident memory, from /proc.
func resident(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.Join(strings.Fields(strings.TrimPrefix(l, "VmRSS:")), " ")
		}
	}
	return "unknown"
}
