package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// terminal is the client's REPL running in a real terminal: a tmux pane
// on a tmux server of its own.
type terminal struct {
	t      *testing.T
	socket string
	env    []string
}

var terminals atomic.Int32

// startTerminal starts the REPL of the client binary in a tmux pane with
// FABRIC_HOME=home and no other FABRIC_ variable, and waits for its prompt.
// The tmux server ends with the test.
func startTerminal(t *testing.T, home string) *terminal {
	t.Helper()
	tm := startPane(t, 120, 50, fmt.Sprintf("env FABRIC_HOME=%s NO_COLOR=1 TERM=xterm %s; sleep 30", home, buildClient(t)))
	tm.waitFor(">>>", 10*time.Second)
	return tm
}

// startPane runs the shell command line in a tmux pane of w x h cells
// on a tmux server of its own, with no FABRIC_ variable of the test's
// environment. The tmux server ends with the test.
func startPane(t *testing.T, w, h int, line string) *terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it)")
	}
	tm := &terminal{t: t, socket: fmt.Sprintf("fabric-test-%d-%d", os.Getpid(), terminals.Add(1))}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "FABRIC_") && !strings.HasPrefix(e, "TMUX") {
			tm.env = append(tm.env, e)
		}
	}
	tm.tmux("new-session", "-d", "-s", "repl", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), line)
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "-L", tm.socket, "kill-server")
		cmd.Env = tm.env
		cmd.Run()
	})
	return tm
}

func (tm *terminal) tmux(args ...string) string {
	tm.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", tm.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = tm.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is what the pane shows.
func (tm *terminal) screen() string { return tm.tmux("capture-pane", "-p", "-t", "repl") }

// scrollback is every line the pane has shown, wrapped lines joined.
func (tm *terminal) scrollback() []string {
	return strings.Split(tm.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "repl"), "\n")
}

func (tm *terminal) waitFor(what string, timeout time.Duration) {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(tm.screen(), what) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("timed out after %s waiting for %q on the screen:\n%s", timeout, what, tm.screen())
}

// keys sends tmux keys (key names such as Enter, C-d, Tab, or text).
func (tm *terminal) keys(k ...string) { tm.tmux(append([]string{"send-keys", "-t", "repl"}, k...)...) }

// eval types line and Enter at the prompt, and returns what the REPL
// answered (its stdout and stderr) before its next prompt.
func (tm *terminal) eval(line string, timeout time.Duration) string {
	tm.t.Helper()
	typed := ">>> " + line
	count := func(lines []string) int {
		n := 0
		for _, l := range lines {
			if strings.TrimRight(l, " ") == typed {
				n++
			}
		}
		return n
	}
	before := count(tm.scrollback())
	tm.tmux("send-keys", "-t", "repl", "-l", line)
	tm.keys("Enter")
	deadline := time.Now().Add(timeout)
	for {
		lines := tm.scrollback()
		if count(lines) > before {
			seen := 0
			for i, l := range lines {
				if strings.TrimRight(l, " ") != typed {
					continue
				}
				if seen++; seen <= before {
					continue
				}
				for j := i + 1; j < len(lines); j++ {
					if strings.HasPrefix(lines[j], ">>>") {
						return strings.Join(lines[i+1:j], "\n")
					}
				}
				break
			}
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out after %s waiting for the answer to %q:\n%s", timeout, line, tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestREPLInTerminal drives the REPL in a real terminal under tmux: a
// multi-line def, a completion, a pasted block with a blank line inside,
// a command line, and Ctrl-D to leave.
func TestREPLInTerminal(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	tm := startTerminal(t, home)
	waitFor := func(what string) { t.Helper(); tm.waitFor(what, 10*time.Second) }
	keys := tm.keys

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
	tm.tmux("set-buffer", "def pasted():\n    a = 5\n\n    return a * 100\n\n")
	tm.tmux("paste-buffer", "-t", "repl")
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

// TestREPLPredeclaredInTerminal: in a real terminal, every predeclared
// name (as dir() lists them) works in a statement as in an expression, and
// assignments that call the fabric's builtins and modules work against the
// local fabric.
func TestREPLPredeclaredInTerminal(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	tm := startTerminal(t, home)
	// The local fabric starts by itself at the first call that needs it.
	t.Cleanup(func() { client(t, home, "fabric", "down") })
	const wait = 10 * time.Second

	// The names in scope in a fresh session: the predeclared names.
	out := tm.eval(`print("names: " + " ".join(dir()))`, wait)
	listed, ok := strings.CutPrefix(strings.TrimSpace(out), "names: ")
	if !ok {
		t.Fatalf("dir() printed:\n%s", out)
	}
	names := strings.Fields(listed)
	for _, want := range []string{"pods", "jobs", "frame", "dataset", "json", "yaml", "help", "exit", "out", "sys"} {
		if !strings.Contains(" "+listed+" ", " "+want+" ") {
			t.Fatalf("dir() lacks %s: %q", want, names)
		}
	}
	failed := func(answer string) bool {
		return strings.Contains(answer, "undefined") || strings.Contains(answer, "<repl>:")
	}
	for _, name := range names {
		if answer := tm.eval("v = "+name, wait); failed(answer) {
			t.Errorf("v = %s:\n%s", name, answer)
		}
		if answer := tm.eval(name, wait); failed(answer) || answer == "" {
			t.Errorf("%s:\n%s", name, answer)
		}
	}

	number := regexp.MustCompile(`(?m)^\d+$`)
	if answer := tm.eval("p = pods()", 60*time.Second); failed(answer) {
		t.Fatalf("p = pods():\n%s", answer)
	}
	if answer := tm.eval("len(p)", wait); !number.MatchString(answer) || answer == "0" {
		t.Errorf("len(p) = %q, want the number of pods", answer)
	}
	if answer := tm.eval("x = jobs()", wait); failed(answer) {
		t.Fatalf("x = jobs():\n%s", answer)
	}
	if answer := tm.eval("len(x)", wait); !number.MatchString(answer) {
		t.Errorf("len(x) = %q, want a number", answer)
	}
	if answer := tm.eval(`f = frame.from_rows([{"a": 1}])`, wait); failed(answer) {
		t.Fatalf("f = frame.from_rows(...):\n%s", answer)
	}
	if answer := tm.eval("len(f)", wait); strings.TrimSpace(answer) != "1" {
		t.Errorf("len(f) = %q, want 1", answer)
	}
}
