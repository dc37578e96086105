// Package fabrictest starts a real fabric inside a test: an embedded
// nats-server on a random port with its store in a temp dir, one account
// per tenant, and each tenant's pods, with the network configurations
// written where the client finds them.
package fabrictest

import (
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/natsserver"
	"github.com/fabricops/fabric/fabric/pods/deliverer"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
	"github.com/fabricops/fabric/fabric/pods/runner"
	"github.com/fabricops/fabric/fabric/pods/worker"
)

// Fabric is a running test fabric.
type Fabric struct {
	Server *natsserver.Server
	// Home is the FABRIC_HOME of the test.
	Home string
	// Configs holds each tenant's network configuration.
	Configs map[string]*bus.Config
	// Runners holds each tenant's pods.
	Runners map[string]*runner.Runner

	serverOptions natsserver.ServerOptions
	runnerOptions map[string]runner.Options
}

// Restart stops every tenant's pods gracefully, restarts the NATS server
// (down for down) and starts the pods again, as a fabric down and up
// does: what the pods keep in JetStream is what they go on from.
func (f *Fabric) Restart(t testing.TB, down time.Duration) {
	t.Helper()
	for _, r := range f.Runners {
		r.Stop()
	}
	f.RestartServer(t, down)
	for name, ro := range f.runnerOptions {
		r, err := runner.Start(ro)
		if err != nil {
			t.Fatal(err)
		}
		f.Runners[name] = r
		if err := r.WaitVisible(10 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

// RestartServer stops the fabric's NATS server, waits down, and starts it
// again on the same port with the same store, as a server restart in
// production does: the pods' connections reconnect.
func (f *Fabric) RestartServer(t testing.TB, down time.Duration) {
	t.Helper()
	o := f.serverOptions
	u, err := url.Parse(f.Server.URL())
	if err != nil {
		t.Fatal(err)
	}
	if o.Port, err = strconv.Atoi(u.Port()); err != nil {
		t.Fatal(err)
	}
	f.Server.Shutdown()
	time.Sleep(down)
	srv, err := natsserver.StartServer(o)
	if err != nil {
		t.Fatalf("starting the NATS server again: %v", err)
	}
	f.Server = srv
}

// TestCapacityFilter is the capacity filter of the test fabric's pods.
const TestCapacityFilter = "pod_usage_active_jobs < 100"

// Options configures Start.
type Options struct {
	// Tenants to create (default: "a").
	Tenants []string
	// Pods of each tenant (default: api-server, scheduler, 2 workers and an
	// event-gateway, as the local fabric runs).
	Pods []string
	// LeaseTTL of the scheduler lease (default 2s, to keep tests short).
	LeaseTTL time.Duration
	// ControllerPeriod of the deployment controller (default 1s).
	ControllerPeriod time.Duration
	// Worker configures the workers (job limits); each tenant's data
	// directory is DataDir(tenant) unless Worker.DataDir is set.
	Worker worker.Options
	// Limits are each tenant's JetStream limits (zero: the defaults).
	Limits bus.Limits
	// Logger receives the pods' log lines (nil: none), as fabricd's log
	// would.
	Logger *log.Logger
	// EventGateway configures the event gateways (the local fabric's add
	// default endpoints: Defaults); each tenant's directory is
	// DataDir(tenant) unless EventGateway.DataDir is set.
	EventGateway eventgw.Options
	// Deliverer bounds the subscriptions' deliveries (zero: the defaults).
	Deliverer deliverer.Options
}

// DefaultPods are the pods of a tenant of the local fabric (with two
// workers), from the pod types' registrations.
var DefaultPods = runner.LocalPods(2)

// Start starts a fabric and stops it when the test ends. It sets
// FABRIC_HOME and FABRIC_NETWORK_CONFIG (the first tenant's) for the test.
func Start(t testing.TB, o Options) *Fabric {
	t.Helper()
	if len(o.Tenants) == 0 {
		o.Tenants = []string{"a"}
	}
	if o.Pods == nil {
		o.Pods = DefaultPods
	}
	if o.ControllerPeriod == 0 {
		o.ControllerPeriod = time.Second
	}
	if o.LeaseTTL == 0 {
		o.LeaseTTL = 2 * time.Second
	}
	dir := t.TempDir()
	var tenants []bus.Tenant
	for _, name := range o.Tenants {
		tn, err := bus.NewTenant(name)
		if err != nil {
			t.Fatal(err)
		}
		tn.Limits = o.Limits
		tenants = append(tenants, tn)
	}
	so := natsserver.ServerOptions{Name: "test", Host: "127.0.0.1", Port: -1, StoreDir: filepath.Join(dir, "jetstream"), Tenants: tenants}
	srv, err := natsserver.StartServer(so)
	if err != nil {
		t.Fatal(err)
	}
	f := &Fabric{Server: srv, Home: filepath.Join(dir, "home"), Configs: map[string]*bus.Config{}, Runners: map[string]*runner.Runner{}, serverOptions: so,
		runnerOptions: map[string]runner.Options{}}
	t.Cleanup(func() {
		for _, r := range f.Runners {
			r.Stop()
		}
		f.Server.Shutdown()
	})
	for i, tn := range tenants {
		cfg := &bus.Config{Tenant: tn.Name, NATS: bus.NATSConfig{URLs: []string{srv.URL()}, User: tn.User, Password: tn.Password}}
		// Workers take jobs whatever the load of the machine running the
		// tests (the default capacity filter also looks at cpu_load1).
		wo := o.Worker
		if wo.DataDir == "" {
			wo.DataDir = f.DataDir(tn.Name)
			if err := os.MkdirAll(wo.DataDir, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		// Each tenant's gateway reads webhook certificates from its own
		// directory, as fabricd gives it.
		gw := o.EventGateway
		if gw.DataDir == "" {
			gw.DataDir = f.DataDir(tn.Name)
			if err := os.MkdirAll(gw.DataDir, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		// Each tenant's graph database on a port and with a password of
		// its own, as the local fabric runs them.
		ro := runner.Options{Config: cfg, Pods: o.Pods, Site: "local", BuildTag: "test",
			CapacityFilter:  TestCapacityFilter,
			PlatformVersion: "test", LicenseExpires: time.Now().AddDate(1, 0, 0), LeaseTTL: o.LeaseTTL, ControllerPeriod: o.ControllerPeriod, Worker: wo, Logger: o.Logger, EventGateway: gw,
			Deliverer: o.Deliverer}
		if err := runner.PrepareLocal(&ro, runner.Local{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		path := f.ConfigPath(tn.Name)
		if err := cfg.Save(path); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			t.Setenv("FABRIC_HOME", f.Home)
			t.Setenv("FABRIC_NETWORK_CONFIG", path)
		}
		f.Configs[tn.Name] = cfg
		f.runnerOptions[tn.Name] = ro
		r, err := runner.Start(ro)
		if err != nil {
			t.Fatal(err)
		}
		f.Runners[tn.Name] = r
		if err := r.WaitVisible(10 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// DataDir is a tenant's data directory, the files @files:loadfile reads.
func (f *Fabric) DataDir(tenant string) string { return filepath.Join(f.Home, "data", tenant) }

// ConfigPath returns the path of a tenant's network configuration.
func (f *Fabric) ConfigPath(tenant string) string {
	return filepath.Join(f.Home, "tenants", tenant, bus.ConfigFileName)
}

// UseTenant points FABRIC_NETWORK_CONFIG at a tenant's configuration.
func (f *Fabric) UseTenant(t testing.TB, tenant string) {
	t.Setenv("FABRIC_NETWORK_CONFIG", f.ConfigPath(tenant))
}

// PodsOf returns the ids of a tenant's running pods of a type.
func (f *Fabric) PodsOf(tenant, podType string) []string {
	var ids []string
	for _, p := range f.Runners[tenant].Pods() {
		if p.PodType == podType {
			ids = append(ids, p.PodID)
		}
	}
	return ids
}
