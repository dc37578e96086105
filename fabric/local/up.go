package local

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// UpOptions configures Up.
type UpOptions struct {
	Tenants []string
	Workers int
	// Exe is the client binary to run as "fabric serve" (default: this
	// process's executable).
	Exe string
}

// StartTimeout bounds how long Up waits for the fabric to be ready.
const StartTimeout = 30 * time.Second

// Up starts the local fabric in the background and waits until it is ready.
// When one runs already it is left alone (started is false); asking it for
// tenants it lacks is an error.
func Up(home string, o UpOptions) (st *State, started bool, err error) {
	if st, err := Status(home); err != nil || st != nil {
		if err == nil {
			for _, t := range o.Tenants {
				if !slices.Contains(st.Tenants, t) {
					return st, false, fmt.Errorf("the local fabric runs with tenants %s, not %s: run 'client fabric down' first to change them", strings.Join(st.Tenants, ","), t)
				}
			}
		}
		return st, false, err
	}
	last := loadSettings(home)
	if len(o.Tenants) == 0 {
		o.Tenants = last.Tenants
	}
	if len(o.Tenants) == 0 {
		o.Tenants = []string{DefaultTenant}
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
		if last.Workers > 0 {
			o.Workers = last.Workers
		}
	}
	if o.Exe == "" {
		if o.Exe, err = os.Executable(); err != nil {
			return nil, false, err
		}
	}
	if err := os.MkdirAll(Dir(home), 0o700); err != nil {
		return nil, false, err
	}
	logf, err := os.OpenFile(LogFile(home), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, false, err
	}
	defer logf.Close()
	cmd := exec.Command(o.Exe, "fabric", "serve", "--tenants", strings.Join(o.Tenants, ","), "--workers", strconv.Itoa(o.Workers))
	cmd.Env = append(os.Environ(), "FABRIC_HOME="+home)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the client and its terminal
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("cannot start the local fabric: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(StartTimeout)
	for {
		select {
		case err := <-exited:
			return nil, false, fmt.Errorf("the local fabric stopped while starting (%v); its log %s ends with:\n%s", err, LogFile(home), tail(home))
		case <-deadline:
			_ = cmd.Process.Kill()
			return nil, false, fmt.Errorf("timed out after %s waiting for the local fabric to start; see %s", StartTimeout, LogFile(home))
		case <-time.After(20 * time.Millisecond):
		}
		if st, _ := Status(home); st != nil && st.PID == cmd.Process.Pid {
			return st, true, nil
		}
	}
}

func tail(home string) string {
	s, _ := Logs(home, 5)
	return strings.TrimRight(s, "\n")
}
