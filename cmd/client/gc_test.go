package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/nats-io/nats.go/jetstream"
)

// storeSize returns how many bytes the tenant's object store holds, read
// straight from its stream.
func storeSize(t *testing.T, home string) uint64 {
	t.Helper()
	cfg, err := bus.LoadConfig(filepath.Join(home, bus.ConfigFileName))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := bus.Connect(cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, "OBJ_"+api.ObjectsBucket)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Bytes
}

// killDuringAdd starts adding file as dataset "big" and kills victim (the
// client itself when nil) with SIGKILL once the add has stored chunks.
func killDuringAdd(t *testing.T, home, file string, before uint64, victim func() int) {
	t.Helper()
	cmd := exec.Command(buildClient(t), "dataset", "add", "--name", "big", "--file", file, "--remote_format", "csv") // csv: stored as it is read
	cmd.Env = append(os.Environ(), "FABRIC_HOME="+home)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); storeSize(t, home) < before+2<<20; {
		if time.Now().After(deadline) {
			t.Fatal("timed out after 30s waiting for the add to store chunks")
		}
		select {
		case err := <-done:
			t.Fatalf("the add ended before it could be killed: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	pid := cmd.Process.Pid
	if victim != nil {
		pid = victim()
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
}

// sweep runs fabric gc with no grace and returns its report.
func sweep(t *testing.T, home string) map[string]any {
	t.Helper()
	out, errOut, code := client(t, home, "fabric", "gc", "--grace", "0s", "--json")
	if code != 0 {
		t.Fatalf("fabric gc: %d %s", code, errOut)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return r
}

// TestSweepAfterKills: a client killed (kill -9) during a dataset add,
// and the server killed during another, leave chunks that no dataset
// owns; a sweep removes them, and the store is the size it had before.
// The dataset that was there is untouched.
func TestSweepAfterKills(t *testing.T) {
	home := t.TempDir()
	t.Cleanup(func() { client(t, home, "fabric", "down") })
	dir := t.TempDir()
	small := filepath.Join(dir, "small.csv")
	os.WriteFile(small, []byte("host,cpu\nweb-1,1\n"), 0o644)
	big := filepath.Join(dir, "big.csv")
	writeCSV(t, big, 3_000_000)
	if _, errOut, code := client(t, home, "dataset", "add", "--name", "big", "--file", small); code != 0 {
		t.Fatal(errOut)
	}
	before := storeSize(t, home)

	// The client dies.
	killDuringAdd(t, home, big, before, nil)
	if got := storeSize(t, home); got <= before {
		t.Fatalf("the killed add left nothing to sweep (%d bytes, %d before)", got, before)
	}
	if r := sweep(t, home); r["uploads"].(float64) < 1 {
		t.Fatalf("the sweep found no incomplete upload: %v", r)
	}
	if got := storeSize(t, home); got != before {
		t.Fatalf("after the sweep the store holds %d bytes, %d before", got, before)
	}

	// The server dies.
	var st struct{ PID int }
	data, _ := os.ReadFile(filepath.Join(home, "local", "fabric.json"))
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	killDuringAdd(t, home, big, before, func() int { return st.PID })
	if _, errOut, code := client(t, home, "fabric", "up"); code != 0 {
		t.Fatalf("fabric up after kill -9: %s", errOut)
	}
	sweep(t, home)
	if got := storeSize(t, home); got != before {
		t.Fatalf("after the server's kill and a sweep the store holds %d bytes, %d before", got, before)
	}
	if out, _, code := client(t, home, "dataset", "get", "--name", "big", "--format", "csv"); code != 0 || out != "host,cpu\nweb-1,1\n" {
		t.Fatalf("the old dataset: %d %q", code, out)
	}
	// Nothing left: a dry run finds nothing.
	out, _, _ := client(t, home, "fabric", "gc", "--grace", "0s", "--dry-run")
	if out != "" {
		t.Fatalf("a second sweep still finds: %s", out)
	}
}
