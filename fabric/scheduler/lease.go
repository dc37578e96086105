// Package scheduler holds the scheduler pod's leadership: of all the
// schedulers of a tenant exactly one leads, through a lease in the tenant's
// KV store that the leader renews and the others wait to take over.
package scheduler

import (
	"context"
	"errors"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/pod"
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
	kv, err := pod.EnsureKV(ctx, p.JetStream(), jetstream.KeyValueConfig{
		Bucket: api.LeasesBucket, Description: "leader leases", TTL: ttl, History: 1,
	})
	cancel()
	if err != nil {
		return err
	}
	go run(p, kv, ttl)
	return nil
}

func run(p *pod.Pod, kv jetstream.KeyValue, ttl time.Duration) {
	var rev uint64
	tick := time.NewTicker(ttl / 6)
	defer tick.Stop()
	try := func() {
		ctx, cancel := context.WithTimeout(context.Background(), ttl/3)
		defer cancel()
		if p.Leader() {
			r, err := kv.Update(ctx, leaseKey, []byte(p.ID), rev)
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					return // try again; the lease may still be ours
				}
				p.SetLeader(false)
				return
			}
			rev = r
			return
		}
		r, err := kv.Create(ctx, leaseKey, []byte(p.ID))
		if err == nil {
			rev = r
			p.SetLeader(true)
		}
	}
	try()
	for {
		select {
		case <-p.Done():
			if p.Leader() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				_ = kv.Delete(ctx, leaseKey, jetstream.LastRevision(rev))
				cancel()
				p.SetLeader(false)
			}
			return
		case <-tick.C:
			try()
		}
	}
}
