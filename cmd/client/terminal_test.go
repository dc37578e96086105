package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestREPLInTerminal drives the REPL in a real terminal under tmux: a
// multi-line def, a completion, a pasted block with a blank line inside,
// a command line, and Ctrl-D to leave.
func TestREPLInTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it)")
	}
	dir := t.TempDir()
	bin := buildClient(t)
	home := filepath.Join(dir, "home")
	socket := fmt.Sprintf("fabric-test-%d", os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-s", "repl", "-x", "120", "-y", "50",
		fmt.Sprintf("env FABRIC_HOME=%s NO_COLOR=1 TERM=xterm %s; sleep 30", home, bin))
	defer exec.Command("tmux", "-L", socket, "kill-server").Run()

	screen := func() string { return tmux("capture-pane", "-p", "-t", "repl") }
	waitFor := func(what string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(screen(), what) {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("timed out after 10s waiting for %q on the screen:\n%s", what, screen())
	}
	keys := func(k ...string) { tmux(append([]string{"send-keys", "-t", "repl"}, k...)...) }

	waitFor(">>>")
	keys("def double(x):", "Enter")
	waitFor("...")
	keys("    return x * 2", "Enter", "Enter")
	keys("double(21) + 1000", "Enter")
	waitFor("1042")

	keys("json.enc", "Tab")
	waitFor(">>> json.encode")
	keys("([1, 2])", "Enter")
	waitFor(`"[1,2]"`)

	// A paste with a blank line inside a def: one block, not two.
	tmux("set-buffer", "def pasted():\n    a = 5\n\n    return a * 100\n\n")
	tmux("paste-buffer", "-t", "repl")
	keys("pasted() + 7", "Enter")
	waitFor("507")

	keys(":checksum -h", "Enter")
	waitFor("usage: client checksum --pipeline FILE")

	keys("C-d")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if hist, err := os.ReadFile(filepath.Join(home, "history")); err == nil && strings.Contains(string(hist), "double(21) + 1000") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("history was not kept in %s", filepath.Join(home, "history"))
}
