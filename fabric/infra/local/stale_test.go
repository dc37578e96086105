package local

import (
	"os"
	"os/exec"
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
			if got := ClearStale(home, &st); got != tc.stale {
				t.Fatalf("clearStale = %v, want %v", got, tc.stale)
			}
			if now, _ := Status(home); (now == nil) != tc.stale {
				t.Fatalf("Status after clearStale: %+v", now)
			}
		})
	}
}
