// Package scheduler holds the scheduler pod's leadership: of all the
// schedulers of a tenant exactly one leads, through a lease in the tenant's
// KV store that the leader renews and the others wait to take over.
package scheduler

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultLeaseTTL is how long a lease outlives its last renewal: a leader
// that dies is replaced within about this long.
const DefaultLeaseTTL = 6 * time.Second

// leaseKey is the lease's key in the leases bucket.
const leaseKey = api.Scheduler

// Elect runs the scheduler election for p until p stops: it takes the lease
// when it is free, renews it while leading, and gives it up on stop so that
// another scheduler takes over at once.
func Elect(p *pod.Pod, ttl time.Duration) error {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	kv, err := store.EnsureKV(ctx, p.JetStream(), jetstream.KeyValueConfig{
		Bucket: api.LeasesBucket, Description: "leader leases", TTL: ttl, History: 1,
	})
	cancel()
	if err != nil {
		return err
	}
	l := &lease{p: p, kv: kv, ttl: ttl}
	l.try() // a scheduler that can lead leads before it is called started
	// A scheduler going into maintenance (an upgrade replaces its
	// process) gives the lease up at once, so that another leads while
	// it is away.
	p.OnMaintenance(func(bool) { l.try() })
	go l.run()
	return nil
}

type lease struct {
	p   *pod.Pod
	kv  jetstream.KeyValue
	ttl time.Duration
	mu  sync.Mutex // guards rev and orders the tries
	rev uint64
}

// try takes the lease when it is free, or renews it when held; a
// scheduler in maintenance gives it up and takes it no more.
func (l *lease) try() {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, kv := l.p, l.kv
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
	defer cancel()
	if p.InMaintenance() {
		if p.Leader() {
			_ = kv.Delete(ctx, leaseKey, jetstream.LastRevision(l.rev))
			p.SetLeader(false)
		}
		return
	}
	if p.Leader() {
		r, err := kv.Update(ctx, leaseKey, []byte(p.ID), l.rev)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return // try again; the lease may still be ours
			}
			p.SetLeader(false)
			return
		}
		l.rev = r
		return
	}
	r, err := kv.Create(ctx, leaseKey, []byte(p.ID))
	if err == nil {
		l.rev = r
		p.SetLeader(true)
	}
}

// run renews or takes the lease until the pod stops, then gives it up.
func (l *lease) run() {
	p, kv := l.p, l.kv
	tick := time.NewTicker(l.ttl / 6)
	defer tick.Stop()
	for {
		select {
		case <-p.Done():
			l.mu.Lock()
			if p.Leader() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				_ = kv.Delete(ctx, leaseKey, jetstream.LastRevision(l.rev))
				cancel()
				p.SetLeader(false)
			}
			l.mu.Unlock()
			return
		case <-tick.C:
			l.try()
		}
	}
}
