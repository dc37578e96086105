package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentFirstCommands: eight commands started at once against a
// stopped local fabric all succeed, against one server that started once.
func TestConcurrentFirstCommands(t *testing.T) {
	home := t.TempDir()
	t.Cleanup(func() { client(t, home, "fabric", "down") })
	const n = 8
	var wg sync.WaitGroup
	results := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, errOut, code := client(t, home, "pods", "--json")
			results[i] = fmt.Sprintf("exit %d, %d pods, stderr %q", code, strings.Count(out, `"pod_id"`), errOut)
		}()
	}
	wg.Wait()
	for i, r := range results {
		if !strings.HasPrefix(r, "exit 0, 7 pods") { // the local fabric's: api-server, scheduler, 2 workers, event gateway, graph database, portal
			t.Errorf("command %d: %s", i, r)
		}
	}
	log, err := os.ReadFile(filepath.Join(home, "local", "fabric.log"))
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(string(log), "local fabric ready"); c != 1 {
		t.Errorf("the fabric started %d times:\n%s", c, log)
	}
	if strings.Contains(string(log), "error") {
		t.Errorf("the fabric's log has errors:\n%s", log)
	}
}

// TestStaleStartLock: a process killed while it held the start lock leaves
// no lock behind: the next command starts the fabric.
func TestStaleStartLock(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1)")
	}
	home := t.TempDir()
	t.Cleanup(func() { client(t, home, "fabric", "down") })
	lock := filepath.Join(home, "local", "start.lock")
	if err := os.MkdirAll(filepath.Dir(lock), 0o700); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("flock", "--close", lock, "sleep", "60") // the lock is flock's alone
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // it holds the lock
	_ = holder.Process.Kill()
	_ = holder.Wait()
	out, errOut, code := client(t, home, "pods")
	if code != 0 || strings.Count(out, "\n") != 9 {
		t.Fatalf("pods after a killed lock holder: exit %d\n%s%s", code, out, errOut)
	}
}
