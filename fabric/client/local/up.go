package local

import (
	"errors"
	"fmt"
	infra "github.com/fabricops/fabric/fabric/infra/local"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Daemon is the name of the binary that runs the local fabric.
const Daemon = "fabricd"

// UpOptions configures Up.
type UpOptions struct {
	Tenants []string
	Workers int
	// Daemon is the fabricd binary to run as "fabricd local" (default:
	// FindDaemon's).
	Daemon string
	// GraphDBURL names a real ArangoDB the tenants use ("embedded": the
	// embedded store; empty: as last time), GraphDBUser its user; the
	// password goes in FABRIC_GRAPHDB_PASSWORD.
	GraphDBURL, GraphDBUser string
	// OnStart, when set, is called just before Up starts the fabric (not
	// when it runs already or another process starts it).
	OnStart func()
}

// StartTimeout bounds how long Up waits for the fabric to be ready, and
// TenantStartTimeout more for each tenant (each starts its pods).
const (
	StartTimeout       = 30 * time.Second
	TenantStartTimeout = time.Second
)

// FindDaemon returns the fabricd that runs the local fabric: the one
// beside the running executable (bin/client and bin/fabricd, or both in
// GOBIN after make install), else the first on PATH. When there is none it
// says where it looked.
func FindDaemon() (string, error) {
	p, beside, err := FindBinary(Daemon)
	if err != nil {
		return "", fmt.Errorf("cannot start the local fabric: no %s beside the client (%s) nor on PATH; build both with 'make build' or install them with 'make install'", Daemon, beside)
	}
	return p, nil
}

// FindBinary returns the program name found beside the running executable,
// else on PATH; beside is where it looked first.
func FindBinary(name string) (path, beside string, err error) {
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		beside = filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(beside); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return beside, beside, nil
		}
	}
	p, err := exec.LookPath(name)
	return p, beside, err
}

// startTimeout is how long a start of tenants tenants may take, and so
// how long another command waits for it to end before starting itself.
func startTimeout(tenants int) time.Duration {
	return StartTimeout + time.Duration(tenants)*TenantStartTimeout
}

// Up starts the local fabric in the background and waits until it is ready.
// When one runs already it is left alone (started is false); asking it for
// tenants it lacks is an error.
func Up(home string, o UpOptions) (st *infra.State, started bool, err error) {
	// One start at a time: commands started at once against a stopped
	// fabric wait here, and all but the first find it running.
	lock, err := infra.LockStart(home, startTimeout(len(o.Tenants))+infra.StoreWait+5*time.Second)
	if err != nil {
		return nil, false, err
	}
	defer lock.Unlock()
	st, err = infra.Status(home)
	if err == nil && st != nil && infra.ClearStale(home, st) {
		st = nil // its pid is another process's now: no fabric runs
	}
	if err != nil || st != nil {
		if err == nil {
			for _, t := range o.Tenants {
				if !slices.Contains(st.Tenants, t) {
					return st, false, fmt.Errorf("the local fabric runs with tenants %s, not %s: run 'client fabric down' first to change them", strings.Join(st.Tenants, ","), t)
				}
			}
		}
		return st, false, err
	}
	last := infra.LoadSettings(home)
	if len(o.Tenants) == 0 {
		o.Tenants = last.Tenants
	}
	if len(o.Tenants) == 0 {
		o.Tenants = []string{infra.DefaultTenant}
	}
	if o.Workers <= 0 {
		o.Workers = infra.DefaultWorkers
		if last.Workers > 0 {
			o.Workers = last.Workers
		}
	}
	if o.Daemon == "" {
		if o.Daemon, err = FindDaemon(); err != nil {
			return nil, false, err
		}
	}
	if err := os.MkdirAll(infra.Dir(home), 0o700); err != nil {
		return nil, false, err
	}
	// A fabric killed a moment ago holds its store until its process
	// has ended.
	if err := infra.WaitStore(home); err != nil {
		return nil, false, err
	}
	infra.RemoveState(home)
	logf, err := os.OpenFile(infra.LogFile(home), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, false, err
	}
	defer logf.Close()
	_ = logf.Chmod(0o600)
	marks := markLogs(home)
	args := []string{"local", "--home", home, "--tenants", strings.Join(o.Tenants, ","), "--workers", strconv.Itoa(o.Workers)}
	if o.GraphDBURL != "" {
		args = append(args, "--graphdb-url", o.GraphDBURL)
		if o.GraphDBUser != "" {
			args = append(args, "--graphdb-user", o.GraphDBUser)
		}
	}
	if o.OnStart != nil {
		o.OnStart()
	}
	cmd := exec.Command(o.Daemon, args...)
	cmd.Env = append(os.Environ(), "FABRIC_HOME="+home)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the client and its terminal
	if err := cmd.Start(); err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return nil, false, fmt.Errorf("cannot start the local fabric with %s: %v", o.Daemon, err)
		}
		return nil, false, fmt.Errorf("cannot start the local fabric: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timeout := startTimeout(len(o.Tenants))
	deadline := time.After(timeout)
	for {
		select {
		case err := <-exited:
			return nil, false, fmt.Errorf("the local fabric stopped while starting (%v): %s", err, marks.reasons())
		case <-deadline:
			_ = cmd.Process.Kill()
			return nil, false, fmt.Errorf("timed out after %s waiting for the local fabric to start: %s", timeout, marks.reasons())
		case <-time.After(20 * time.Millisecond):
		}
		if st, _ := infra.Status(home); st != nil && st.PID == cmd.Process.Pid {
			return st, true, nil
		}
	}
}
