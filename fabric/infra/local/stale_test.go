package local

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStatusOfKilledFabric: a state file whose process is a zombie (a
// fabric killed with SIGKILL that nobody reaped yet) is no running
// fabric; one whose process runs is.
func TestStatusOfKilledFabric(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(Dir(home), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if err := WriteState(home, State{PID: cmd.Process.Pid}); err != nil {
		t.Fatal(err)
	}
	if st, err := Status(home); err != nil || st == nil {
		t.Fatalf("Status of a running process: %+v, %v", st, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not reaped: a zombie until Cleanup waits for it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := Status(home)
		if err != nil {
			t.Fatal(err)
		}
		if st == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Status still reports the killed process %d after 10s", st.PID)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStartFailureReasons: a failed start shows the lines of its logs
// that say why, written since the start, without times, repeats or a
// stack; with none, the fabric log's last lines.
func TestStartFailureReasons(t *testing.T) {
	tests := []struct {
		name          string
		before, after string // the fabric's log
		nats          string
		want          []string
		not           []string
	}{
		{
			name:   "nats errors and the fabric's",
			before: "2026/01/01 10:00:00 error: an old failure\n",
			after:  "2026/01/01 10:00:01 [t1] started api-server pod 1\n2026/01/01 10:00:02 error: creating bucket: insufficient resources\n",
			nats:   "[1] [INF] Starting\n[1] [ERR] Error setting up jetstream for account \"t80\": insufficient memory resources available\n[1] [ERR] Error setting up jetstream for account \"t80\": insufficient memory resources available\n",
			want:   []string{"creating bucket: insufficient resources", "[ERR] Error setting up jetstream for account \"t80\": insufficient memory"},
			not:    []string{"an old failure", "2026/01/01", "started api-server"},
		},
		{
			name:  "a panic without its stack",
			after: "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:10 +0x1d\n",
			want:  []string{"panic: runtime error: index out of range"},
			not:   []string{"goroutine", "main.go"},
		},
		{
			name:  "no error: the last lines",
			after: "2026/01/01 10:00:01 starting\n2026/01/01 10:00:02 waiting for the server\n",
			want:  []string{"starting", "waiting for the server"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.MkdirAll(Dir(home), 0o700); err != nil {
				t.Fatal(err)
			}
			write := func(path, text string, flag int) {
				f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|flag, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(text)
				f.Close()
			}
			write(LogFile(home), tc.before, os.O_TRUNC)
			marks := markLogs(home)
			write(LogFile(home), tc.after, os.O_APPEND)
			write(NATSLogFile(home), tc.nats, os.O_APPEND)
			got := marks.reasons()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("reasons lack %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("reasons hold %q:\n%s", n, got)
				}
			}
			if strings.Count(got, "insufficient memory resources") > 1 {
				t.Errorf("a repeated line is shown twice:\n%s", got)
			}
			if !strings.Contains(got, filepath.Base(NATSLogFile(home))) {
				t.Errorf("reasons do not name the logs:\n%s", got)
			}
		})
	}
}

// TestStaleStateOfReusedPID: a state whose pid runs another program than
// the fabricd that wrote it (the pid was reused after the fabric died)
// is cleared; one whose pid runs that program, or that records none, is
// kept.
func TestStaleStateOfReusedPID(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		build string
		stale bool
	}{
		{"another program", "/opt/fabric/bin/fabricd:123:456", true},
		{"the same program", BuildID(sleep), false},
		{"no record", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.MkdirAll(Dir(home), 0o700); err != nil {
				t.Fatal(err)
			}
			st := State{PID: cmd.Process.Pid, Build: tc.build}
			if err := WriteState(home, st); err != nil {
				t.Fatal(err)
			}
			if got := clearStale(home, &st); got != tc.stale {
				t.Fatalf("clearStale = %v, want %v", got, tc.stale)
			}
			if now, _ := Status(home); (now == nil) != tc.stale {
				t.Fatalf("Status after clearStale: %+v", now)
			}
		})
	}
}
