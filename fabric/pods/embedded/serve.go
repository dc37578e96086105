// Package embedded runs the local fabric: an embedded nats-server on
// 127.0.0.1 with JetStream under $FABRIC_HOME/local, one account per
// tenant, and each tenant's pods, in one process. "fabricd local" runs it;
// "client fabric up" starts that process in the background (package
// local) and reads the files it writes.
package embedded

import (
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/fabric/infra/natsserver"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
	"github.com/fabricops/fabric/fabric/pods/runner"
	"github.com/fabricops/fabric/fabric/pods/worker"
)

// ServeOptions configures Serve.
type ServeOptions struct {
	Tenants []string
	Workers int
	// Version is the client's version, reported by the pods.
	Version string
	// Logger receives the fabric's log lines.
	Logger *log.Logger
	// GraphDB, when not nil, replaces the graph database of the last run:
	// one with a URL is the user's (a real ArangoDB), one without is the
	// embedded store.
	GraphDB *bus.GraphDBConfig
	// PodIDs are each tenant's pods' ids, in the runner's order (an
	// upgraded process keeps its pods'); a tenant without: new ones.
	PodIDs map[string][]string
	// Upgrade, when set, lets an upgrade request to a pod replace the
	// process with the fabricd of a build of the local fabric's builds
	// directory (local.BuildsDir): every tenant's pods drain and stop,
	// the server shuts down, and Upgrade runs the build with the pods'
	// ids. It returns only when it failed.
	Upgrade func(dir string, podIDs map[string][]string) error
}

// Serve runs the local fabric in the foreground until SIGTERM or SIGINT,
// then stops it gracefully. Its data stays under $FABRIC_HOME/local.
func Serve(home string, o ServeOptions) error {
	if len(o.Tenants) == 0 {
		o.Tenants = []string{local.DefaultTenant}
	}
	if o.Workers <= 0 {
		o.Workers = local.DefaultWorkers
	}
	logger := o.Logger
	if logger == nil {
		logger = log.New(os.Stderr, "", log.LstdFlags)
	}
	if st, _ := local.Status(home); st != nil && st.PID != os.Getpid() {
		return fmt.Errorf("a local fabric runs already (pid %d)", st.PID)
	}
	// Held until this process ends: no second server opens the store.
	storeLock, err := local.TryLockStore(home)
	if errors.Is(err, local.ErrLocked) {
		return fmt.Errorf("a local fabric runs already with its store in %s", local.Dir(home))
	}
	if err != nil {
		return err
	}
	defer storeLock.Unlock()
	set := local.LoadSettings(home)
	tenants, lastGraphs, lastPortals, err := loadTenants(home, o.Tenants)
	if err != nil {
		return err
	}
	// The port of the last run, so that network configurations stay
	// valid; else any free one, picked by the server as it binds.
	port := set.Port
	if port == 0 || !portFree(port) {
		port = -1
	}
	srv, err := natsserver.StartServer(natsserver.ServerOptions{Name: "fabric-local", Host: "127.0.0.1", Port: port,
		StoreDir: filepath.Join(local.Dir(home), "jetstream"), Tenants: tenants, LogFile: local.NATSLogFile(home)})
	if err != nil {
		return err
	}
	set.Port, set.Tenants, set.Workers = srv.Port(), o.Tenants, o.Workers
	if o.GraphDB != nil {
		set.GraphDB = *o.GraphDB
	}
	expires, err := time.Parse("2006-01-02", set.LicenseExpires)
	if err != nil {
		expires = time.Now().AddDate(1, 0, 0)
		set.LicenseExpires = expires.Format("2006-01-02")
	}
	if err := local.SaveSettings(home, set); err != nil {
		srv.Shutdown()
		return err
	}

	var runners []*runner.Runner
	stopAll := func() {
		for _, r := range runners {
			r.Stop()
		}
		srv.Shutdown()
	}
	// Only the owner of the local fabric (who reads its home) upgrades
	// it: its tenants share the process.
	upgradeToken, err := local.NewUpgradeToken(home)
	if err != nil {
		stopAll()
		return err
	}
	upgradeFailed := make(chan error, 1)
	var upgradeOnce sync.Once
	upgrade := func(dir string, _ []string) error {
		// The runner asked drained and stopped its pods; the others
		// drain now (a drain that does not end gives the upgrade up).
		err := errors.New("an upgrade is under way")
		upgradeOnce.Do(func() {
			ids := map[string][]string{}
			for i, r := range runners {
				if err = r.Drain(runner.DefaultDrainTimeout); err != nil {
					err = fmt.Errorf("tenant %s: %w", tenants[i].Name, err)
					break
				}
				ids[tenants[i].Name] = r.IDs()
			}
			if err == nil {
				logger.Printf("upgrade: every pod stopped, the server shuts down, running %s", filepath.Join(dir, "fabricd"))
				stopAll()
				err = o.Upgrade(dir, ids)
			}
			upgradeFailed <- err
		})
		return err
	}
	for i, t := range tenants {
		cfg := &bus.Config{Tenant: t.Name, Local: true, NATS: bus.NATSConfig{URLs: []string{srv.URL()}, User: t.User, Password: t.Password}}
		dataDir := local.DataDir(home, t.Name)
		ro := runner.Options{Config: cfg, Pods: runner.LocalPods(o.Workers), IDs: o.PodIDs[t.Name], Site: local.Site, BuildTag: o.Version,
			PlatformVersion: o.Version, LicenseExpires: expires, Logger: logger,
			Worker: worker.Options{DataDir: dataDir},
			EventGateway: eventgw.Options{Defaults: true, CertDir: filepath.Join(local.Dir(home), "certs"),
				DataDir: dataDir, PortsDir: filepath.Join(local.Dir(home), "ports")}}
		if o.Upgrade != nil {
			ro.Upgrade, ro.UpgradesDir, ro.UpgradeToken = upgrade, local.BuildsDir(home), upgradeToken
		}
		if err := runner.PrepareLocal(&ro, runner.Local{Dir: local.Dir(home), UserGraphDB: set.GraphDB, LastGraphDB: lastGraphs[i], LastPortal: lastPortals[i]}); err != nil {
			stopAll()
			return err
		}
		if err := cfg.Save(local.TenantConfigPath(home, t.Name)); err != nil {
			stopAll()
			return err
		}
		if i == 0 {
			if err := saveDefault(home, cfg); err != nil {
				logger.Printf("warning: %v", err)
			}
		}
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			stopAll()
			return err
		}
		r, err := runner.Start(ro)
		if err != nil {
			stopAll()
			return err
		}
		runners = append(runners, r)
		if err := r.WaitVisible(15 * time.Second); err != nil {
			stopAll()
			return err
		}
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	st := local.State{PID: os.Getpid(), URL: srv.URL(), Port: set.Port, Tenants: o.Tenants, Workers: o.Workers,
		StartedAt: api.Timestamp(time.Now()), LicenseExpires: set.LicenseExpires, Version: o.Version, Build: local.BuildID("")}
	if err := local.WriteState(home, st); err != nil {
		stopAll()
		return err
	}
	logger.Printf("local fabric ready at %s, tenants %v, pid %d", srv.URL(), o.Tenants, st.PID)
	select {
	case sig := <-sigs:
		logger.Printf("%s: stopping the local fabric", sig)
	case err := <-upgradeFailed:
		local.RemoveState(home)
		stopAll()
		return fmt.Errorf("the upgrade failed: %w", err)
	}
	local.RemoveState(home)
	stopAll()
	logger.Printf("local fabric stopped")
	return nil
}

// loadTenants returns the tenants with the credentials they had before, or
// new ones, and their graph databases' and portals' places of the last
// run.
func loadTenants(home string, names []string) ([]bus.Tenant, []bus.GraphDBConfig, []string, error) {
	var out []bus.Tenant
	graphs := make([]bus.GraphDBConfig, len(names))
	portals := make([]string, len(names))
	for i, name := range names {
		if err := bus.ValidTenantName(name); err != nil {
			return nil, nil, nil, err
		}
		if cfg, err := bus.LoadConfig(local.TenantConfigPath(home, name)); err == nil && cfg.NATS.Password != "" {
			out = append(out, bus.Tenant{Name: name, User: cfg.NATS.User, Password: cfg.NATS.Password})
			graphs[i], portals[i] = cfg.GraphDB, cfg.Portal.URL
			continue
		}
		t, err := bus.NewTenant(name)
		if err != nil {
			return nil, nil, nil, err
		}
		out = append(out, t)
	}
	return out, graphs, portals, nil
}

// saveDefault writes the default network configuration unless one exists
// that is not the local fabric's (a user's production file is never
// replaced).
func saveDefault(home string, cfg *bus.Config) error {
	path := filepath.Join(home, bus.ConfigFileName)
	if old, err := bus.LoadConfig(path); err == nil && !old.Local {
		return fmt.Errorf("%s is not the local fabric's; left as it is", path)
	}
	return cfg.Save(path)
}

// portFree reports whether the local fabric's port of the last run is
// free on 127.0.0.1, by listening on it a moment.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
