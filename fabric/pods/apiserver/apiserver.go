// Package apiserver is the api-server pod's service: it answers the
// tenant-wide questions (every pod's info, health, status) in one request,
// by asking each live pod of the registry it keeps in memory.
package apiserver

import (
	"context"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
)

// Serve adds the api-server's endpoints to the pod p until it stops.
func Serve(p *pod.Pod) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
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
	st, err := store.Open(ctx, nc)
	if err != nil {
		return err
	}
	recs := jobs.Open(st)
	active, err := recs.WatchActive(ctx)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	go sweep(recs, active, regs, stop)
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
