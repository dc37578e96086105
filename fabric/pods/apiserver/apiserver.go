// Package apiserver is the api-server pod's service: it answers the
// tenant-wide questions (every pod's info, health, status, limits, the
// agents' bots, the event gateways' status and ports) in one request, by
// asking each live pod of the registry it keeps in memory; it deploys
// bundles as one transaction, sweeps jobs and unreferenced data, and makes
// the tenant's system streams when they are missing.
package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/gc"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
)

// Serve adds the api-server's endpoints to the pod p until it stops.
func Serve(p *pod.Pod) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := streams.EnsureSystem(ctx, p.JetStream()); err != nil {
		return err
	}
	kv, err := p.JetStream().KeyValue(ctx, api.PodsBucket)
	if err != nil {
		return err
	}
	w, err := registry.Watch(kv, 5*time.Second)
	if err != nil {
		return err
	}
	nc := p.Conn()
	subs := []*nats.Subscription{}
	add := func(subject string, h nats.MsgHandler) error {
		s, err := nc.QueueSubscribe(subject, api.QueueAPIServer, h)
		subs = append(subs, s)
		return err
	}
	regs := func() []api.Registration { return w.Current(pod.RegistryTTL) }
	if err := add(api.SubjectPods, func(m *nats.Msg) {
		infos, _, _ := registry.Gather[api.PodInfo](context.Background(), nc, regs(), api.EndpointInfo)
		api.SortPods(infos)
		pod.Reply(m, infos)
	}); err != nil {
		return err
	}
	if err := add(api.SubjectHealth, func(m *nats.Msg) {
		rows, _, _ := registry.Gather[[]api.HealthRow](context.Background(), nc, regs(), api.EndpointHealth)
		var all []api.HealthRow
		for _, r := range rows {
			all = append(all, r...)
		}
		pod.Reply(m, all)
	}); err != nil {
		return err
	}
	if err := add(api.SubjectStatus, func(m *nats.Msg) {
		st, _, _ := registry.Gather[api.ControllerStatus](context.Background(), nc, regs(), api.EndpointStatus)
		sort.Slice(st, func(i, j int) bool { return st[i].PodType+st[i].PodID < st[j].PodType+st[j].PodID })
		pod.Reply(m, st)
	}); err != nil {
		return err
	}
	if err := add(api.SubjectLimits, func(m *nats.Msg) {
		per, _, _ := registry.Gather[[]api.LimitRow](context.Background(), nc, regs(), api.EndpointLimits)
		pod.Reply(m, api.MergeLimits(per))
	}); err != nil {
		return err
	}
	fo := &fanouts{nc: nc, regs: regs}
	for subject, h := range fo.handlers() {
		if err := add(subject, h); err != nil {
			return err
		}
	}
	st, err := store.Open(ctx, nc)
	if err != nil {
		return err
	}
	if err := add(api.SubjectGC, func(m *nats.Msg) { collect(m, st) }); err != nil {
		return err
	}
	if err := add(api.SubjectLibraries, newLibraryService(nc, st).serve); err != nil {
		return err
	}
	bd := &bundles{nc: nc, data: tenant.New(nc), logf: p.Logf}
	if err := add(api.SubjectBundleDeploy, bd.serve); err != nil {
		return err
	}
	ps := newPackService(p, st, bd.data)
	for _, subject := range []string{api.SubjectPackActivate, api.SubjectPackDeactivate} {
		if err := add(subject, ps.serve); err != nil {
			return err
		}
	}
	recs := jobs.Open(st)
	active, err := recs.WatchActive(ctx)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	go sweep(recs, active, regs, stop)
	go sweepData(st, p.Logf, stop)
	go func() {
		<-p.Done()
		close(stop)
		for _, s := range subs {
			_ = s.Unsubscribe()
		}
		active.Stop()
		w.Stop()
	}()
	return nil
}

// Sweep timing: how often the api-server looks for the jobs of dead
// workers, and how long a job record may wait for its worker to register.
const (
	sweepEvery = 2 * time.Second
	sweepGrace = 3 * time.Second
)

// sweep fails the active jobs of workers that are gone and purges the
// outputs older than api.OutputTTL, until stop closes. The active jobs are
// known from the watch, so a sweep with none does no KV work.
func sweep(recs *jobs.Records, active *jobs.Active, regs func() []api.Registration, stop <-chan struct{}) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	lastPurge := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if running := active.Jobs(); len(running) > 0 {
			live := map[string]bool{}
			for _, r := range regs() {
				live[r.PodID] = true
			}
			recs.FailOrphans(ctx, running, live, sweepGrace)
		}
		if time.Since(lastPurge) > time.Minute {
			lastPurge = time.Now()
			_, _ = recs.PurgeOutputs(ctx, time.Now().Add(-api.OutputTTL))
		}
		cancel()
	}
}

// collect answers a GCRequest.
func collect(m *nats.Msg, st *store.Store) {
	var req api.GCRequest
	if len(m.Data) > 0 {
		if err := json.Unmarshal(m.Data, &req); err != nil {
			pod.Reply(m, api.Error{Error: "bad gc request: " + err.Error()})
			return
		}
	}
	grace := gc.DefaultGrace
	if req.Grace != "" {
		g, err := time.ParseDuration(req.Grace)
		if err != nil || g < 0 {
			pod.Reply(m, api.Error{Error: fmt.Sprintf("grace must be a duration such as 15m or 1h, not %q", req.Grace)})
			return
		}
		grace = g
	}
	ctx, cancel := context.WithTimeout(context.Background(), api.GCTimeout)
	defer cancel()
	r, err := gc.Collect(ctx, st, grace, req.DryRun)
	if err != nil {
		pod.Reply(m, api.Error{Error: "sweeping unreferenced data: " + err.Error()})
		return
	}
	pod.Reply(m, r)
}

// GCEvery is how often the api-server sweeps unreferenced data itself.
const GCEvery = 10 * time.Minute

// sweepData removes unreferenced data older than gc.DefaultGrace every
// GCEvery, until stop closes.
func sweepData(st *store.Store, logf func(string, ...any), stop <-chan struct{}) {
	t := time.NewTicker(GCEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), api.GCTimeout)
		r, err := gc.Collect(ctx, st, gc.DefaultGrace, false)
		cancel()
		switch {
		case err != nil:
			logf("sweeping unreferenced data: %v", err)
		case len(r.Blobs) > 0 || r.Uploads > 0:
			logf("swept %d unreferenced files and %d incomplete uploads: %d bytes freed", len(r.Blobs), r.Uploads, r.Freed)
		}
	}
}
