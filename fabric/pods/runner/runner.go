// Package runner is the pod controller: it runs a set of pods of one tenant
// against a NATS server (each pod with a connection of its own), restarts a
// pod in place when asked, and stops them all gracefully. The local
// fabric and fabricd both run their pods through it.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/pods/deliverer"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
	"github.com/fabricops/fabric/fabric/pods/graphdb"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/fabricops/fabric/fabric/pods/portal"
	"github.com/fabricops/fabric/fabric/pods/worker"
	"github.com/nats-io/nats.go"
)

// Options configures a runner.
type Options struct {
	// Config says which tenant and servers the pods connect to.
	Config *bus.Config
	// Pods lists the pod types to run, a type once per pod
	// ("worker", "worker").
	Pods []string
	// IDs are the pods' ids in the order of Pods ("" or missing: a new
	// one): a process started again on another build keeps its pods'.
	IDs []string
	// Upgrade, when set with UpgradesDir, lets an upgrade request to one
	// of the pods replace the process with a build of UpgradesDir (see
	// upgrade.go): the runner drains and stops its pods, then calls it
	// with the build's directory and its pods' ids in the order of Pods.
	// It returns only when it failed.
	Upgrade     func(dir string, ids []string) error
	UpgradesDir string
	// UpgradeToken, when set, is the token an upgrade request must
	// carry: a process shared by tenants is upgraded by its owner only.
	UpgradeToken string
	// Site is the site of the workers and agents.
	Site string
	// BuildTag and PlatformVersion are reported in each pod's info.
	BuildTag        string
	PlatformVersion string
	// LicenseExpires is the tenant license's end (zero: none).
	LicenseExpires time.Time
	// LeaseTTL is the scheduler lease's time to live (0: the default).
	LeaseTTL time.Duration
	// ControllerPeriod is how often the leading scheduler's deployment
	// controller looks (0: api.DefaultControllerPeriod).
	ControllerPeriod time.Duration
	// Deliverer bounds the leading scheduler's subscription deliveries
	// (zero fields: deliverer.Defaults).
	Deliverer deliverer.Options
	// CapacityFilter is the pods' capacity filter (empty: the default,
	// api.DefaultCapacityFilter for the host).
	CapacityFilter string
	// Logger receives one line per pod event (nil: none).
	Logger *log.Logger
	// PackagesDir holds the pods' package directories (libraries staged
	// by library install), PackagesDir/<pod id>; empty:
	// Worker.DataDir/packages, and none when that is empty too.
	PackagesDir string
	// Worker configures the workers: job limits, and the tenant's data
	// directory that @files:loadfile reads.
	Worker worker.Options
	// GraphDB configures the graph database pods: their store directory
	// and listen address; the credentials come from Config's graphdb
	// section.
	GraphDB graphdb.PodOptions
	// EventGateway configures the event gateways: the local fabric's add
	// default endpoints and keep their certificates.
	EventGateway eventgw.Options
	// Portal configures the portal pods: their listen address and
	// certificate.
	Portal portal.PodOptions
}

// Runner runs pods.
type Runner struct {
	opts Options
	// mu guards slots and every slot's fields: a pod's restart callback
	// runs in a goroutine of its own as soon as the pod answers, while
	// Start may still be starting the others.
	mu      sync.Mutex
	slots   []*slot
	stopped bool
	// upgrading is set while an upgrade drains the pods.
	upgrading bool
}

type slot struct {
	typ  Type
	spec pod.Spec
	nc   *nats.Conn
	pod  *pod.Pod
}

// Start starts every pod of opts; on failure it stops those it started.
func Start(opts Options) (*Runner, error) {
	r := &Runner{opts: opts}
	for i, name := range opts.Pods {
		t, ok := Lookup(name)
		if !ok {
			r.Stop()
			return nil, fmt.Errorf("unknown pod type %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		spec := pod.Spec{
			Type:            t.Name,
			Category:        t.Category,
			ID:              podID(opts.IDs, i),
			Tenant:          opts.Config.Tenant,
			BuildTag:        opts.BuildTag,
			PlatformVersion: opts.PlatformVersion,
			LicenseExpires:  opts.LicenseExpires,
			ObjstoreHost:    hostPort(opts.Config.NATS.URLs[0]),
			ConfigChecksum:  opts.Config.Checksum(),
			Dependencies:    t.Dependencies,
			CapacityFilter:  opts.CapacityFilter,
			Logger:          opts.Logger,
		}
		if t.Category == api.CategoryApp {
			spec.Site = opts.Site
		}
		if dir := packagesDir(opts); dir != "" {
			spec.PackageDir = filepath.Join(dir, spec.ID)
		}
		s := &slot{typ: t, spec: spec}
		// Started under the lock: the pod's restart callback may run
		// before startSlot returns, and reads what it writes.
		r.mu.Lock()
		err := r.startSlot(s)
		if err == nil {
			r.slots = append(r.slots, s)
		}
		r.mu.Unlock()
		if err != nil {
			r.Stop()
			return nil, err
		}
	}
	return r, nil
}

// startSlot starts the slot's pod; r.mu is held.
func (r *Runner) startSlot(s *slot) error {
	nc, err := bus.Connect(r.opts.Config, "pod-"+s.spec.Type+"-"+s.spec.ID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := pod.Start(ctx, nc, s.spec, func() { r.restart(s) })
	if err == nil && r.opts.Upgrade != nil {
		p.OnUpgrade(r.upgrade)
	}
	if err == nil {
		if err = s.typ.Serve(p, r.opts); err != nil {
			p.Stop()
		}
	}
	if err != nil {
		nc.Close()
		return fmt.Errorf("starting %s pod %s: %w", s.spec.Type, s.spec.ID, err)
	}
	s.nc, s.pod = nc, p
	r.logf("started %s pod %s", s.spec.Type, s.spec.ID)
	return nil
}

// stopSlot stops the slot's pod; r.mu is held.
func (r *Runner) stopSlot(s *slot) {
	if s.pod == nil {
		return
	}
	s.pod.Stop()
	if err := s.nc.Drain(); err == nil {
		deadline := time.Now().Add(5 * time.Second)
		for !s.nc.IsClosed() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	s.nc.Close()
	r.logf("stopped %s pod %s", s.spec.Type, s.spec.ID)
	s.pod, s.nc = nil, nil
}

// restart stops a pod and starts it again with the same id, unless the
// runner stopped meanwhile.
func (r *Runner) restart(s *slot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	r.stopSlot(s)
	s.spec.Restarts++
	if err := r.startSlot(s); err != nil {
		r.logf("restart of %s pod %s failed: %v", s.spec.Type, s.spec.ID, err)
	}
}

// Pods returns the running pods' ids and types.
func (r *Runner) Pods() []api.Registration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []api.Registration
	for _, s := range r.slots {
		if s.pod != nil {
			out = append(out, api.Registration{PodID: s.spec.ID, PodType: s.spec.Type, Site: s.spec.Site})
		}
	}
	return out
}

// StopPod stops one pod (as if it died), leaving the others running.
func (r *Runner) StopPod(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.slots {
		if s.spec.ID == id && s.pod != nil {
			r.stopSlot(s)
			return nil
		}
	}
	return fmt.Errorf("no running pod %s", id)
}

// Stop stops every pod gracefully: each leaves the registry, gives up
// leases and drains its connection.
func (r *Runner) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	var wg sync.WaitGroup
	for _, s := range r.slots {
		wg.Add(1)
		go func(s *slot) {
			defer wg.Done()
			r.stopSlot(s)
		}(s)
	}
	wg.Wait()
}

// conn returns the connection of a running pod (nil: none runs).
func (r *Runner) conn() *nats.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.slots {
		if s.nc != nil {
			return s.nc
		}
	}
	return nil
}

func (r *Runner) logf(format string, args ...any) {
	if r.opts.Logger != nil {
		r.opts.Logger.Printf("[%s] "+format, append([]any{r.opts.Config.Tenant}, args...)...)
	}
}

// packagesDir is the directory of the pods' package directories.
func packagesDir(o Options) string {
	switch {
	case o.PackagesDir != "":
		return o.PackagesDir
	case o.Worker.DataDir != "":
		return filepath.Join(o.Worker.DataDir, "packages")
	}
	return ""
}

func hostPort(url string) string {
	if _, rest, ok := strings.Cut(url, "://"); ok {
		return rest
	}
	return url
}

// WaitVisible waits until every pod of the runner is listed by the
// tenant's pods request (the api-server has seen them all), so that a
// fabric called ready shows all its pods at once.
func (r *Runner) WaitVisible(timeout time.Duration) error {
	want := r.Pods()
	if len(want) == 0 {
		return nil
	}
	nc := r.conn()
	if nc == nil {
		return errors.New("no pod of the runner runs")
	}
	deadline := time.Now().Add(timeout)
	for {
		missing := len(want)
		if msg, err := nc.Request(api.SubjectPods, nil, time.Second); err == nil {
			var seen []api.Registration
			if json.Unmarshal(msg.Data, &seen) == nil {
				ids := map[string]bool{}
				for _, s := range seen {
					ids[s.PodID] = true
				}
				missing = 0
				for _, w := range want {
					if !ids[w.PodID] {
						missing++
					}
				}
			}
		} else if errors.Is(err, nats.ErrNoResponders) {
			return nil // no api-server in this fabric: nothing aggregates
		}
		if missing == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %d pod(s) to be listed", timeout, missing)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
