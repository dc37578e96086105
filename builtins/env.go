package builtins

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/fabricops/fabric/fabric/client"
)

// Env is what the fabric builtins need from the shell: its home, a way to
// tell the user things, and the connection they share (made on first use).
type Env struct {
	// Home is FABRIC_HOME.
	Home string
	// Notice prints a one-line notice for the user (on stderr).
	Notice func(msg string)
	// Version is the client's version (client update reports it).
	Version string
	// Daemon is the fabricd binary that runs the local fabric (default:
	// the one beside the client, then on PATH).
	Daemon string

	mu     sync.Mutex
	client *client.Client
	ahead  chan dialed // set by DialAhead until Client takes it
	dialed *dialed     // what ahead gave, until Client connects
}

// Client returns the connection to the fabric, connecting on first use.
// With no network configuration at all it starts the local fabric; when
// the local fabric's configuration points at a stopped fabric it starts it
// again. Either way it says so in one notice.
func (e *Env) Client() (*client.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client != nil {
		return e.client, nil
	}
	explicit := os.Getenv("FABRIC_NETWORK_CONFIG") != ""
	path := client.ConfigPath(e.Home)
	notRunning := func() { e.notice("the local fabric is not running: starting it ('client fabric down' stops it)") }
	var st *client.LocalState
	cfg, err := e.loadConfig(path)
	if errors.Is(err, client.ErrNoConfig) && !explicit {
		e.notice("no network configuration: starting the local fabric ('client fabric down' stops it)")
		st, cfg, err = e.startLocal(path, nil)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Local && !explicit && st == nil {
		// The local fabric writes its configurations, then starts its
		// NATS server, then its pods: a client that finds the files but
		// no ready fabric waits for it (or starts it) instead of asking
		// pods that are not there yet.
		if st, _ = client.LocalStatus(e.Home); st == nil {
			if st, cfg, err = e.startLocal(path, notRunning); err != nil {
				return nil, err
			}
		}
	}
	c, err := e.connectWith(cfg)
	if errors.Is(err, client.ErrUnreachable) && cfg.Local && !explicit {
		notRunning()
		if st, cfg, err = e.startLocal(path, nil); err != nil {
			return nil, err
		}
		c, err = client.Connect(cfg)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Local && !explicit {
		e.checkBuild(st)
	}
	e.client = c
	return c, nil
}

// checkBuild says so when the local fabric runs another build of fabricd
// than the one this client would start: its pods lack what that build
// added.
func (e *Env) checkBuild(st *client.LocalState) {
	if st == nil || st.Build == "" || e.Daemon != "" {
		return
	}
	daemon, err := client.LocalFindDaemon()
	if err != nil {
		return
	}
	if st.Build != client.LocalBuildID(daemon) {
		e.notice("the local fabric runs another build of fabricd (started " + st.StartedAt + "): 'client fabric down' to run this one")
	}
}

// startLocal starts the local fabric unless it runs (onStart, when set,
// is called just before it starts it) and returns its state and the
// configuration at path it wrote.
func (e *Env) startLocal(path string, onStart func()) (*client.LocalState, *client.Config, error) {
	e.dropAhead() // made to the fabric as it was
	st, _, err := client.LocalUp(e.Home, client.LocalUpOptions{Daemon: e.Daemon, OnStart: onStart})
	if err != nil {
		return nil, nil, err
	}
	cfg, err := client.LoadConfig(path)
	return st, cfg, err
}

func (e *Env) notice(msg string) {
	if e.Notice != nil {
		e.Notice(msg)
	}
}

// Close closes the shared connection, if any.
func (e *Env) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client != nil {
		e.client.Close()
		e.client = nil
	}
}

// fail formats a builtin's error as "name: message".
func fail(name string, err error) error { return fmt.Errorf("%s: %v", name, err) }
