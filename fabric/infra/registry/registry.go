// Package registry reads the tenant's registry of live pods and gathers
// answers from them: it knows exactly which pods to ask, so it never waits
// for a timeout to collect answers, and a pod that died answers "no
// responders" at once and is left out.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// RequestTimeout bounds each pod's answer.
const RequestTimeout = 3 * time.Second

// List returns the registered pods.
func List(ctx context.Context, js jetstream.JetStream) ([]api.Registration, error) {
	kv, err := js.KeyValue(ctx, api.PodsBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil // no pod ever started
	}
	if err != nil {
		return nil, fmt.Errorf("pod registry: %w", err)
	}
	// A pod's entry is rewritten at each heartbeat: Entries does not miss
	// one rewritten while it lists.
	entries, err := store.Entries(ctx, kv)
	if err != nil {
		return nil, fmt.Errorf("pod registry: %w", err)
	}
	var regs []api.Registration
	for _, e := range entries {
		var r api.Registration
		if json.Unmarshal(e.Value(), &r) == nil && r.PodID != "" {
			regs = append(regs, r)
		}
	}
	return regs, nil
}

// Gather asks every registered pod's endpoint at once and decodes each
// answer into a T. Pods that are gone (no responders) are left out; a pod
// that does not answer within RequestTimeout is reported in missing.
func Gather[T any](ctx context.Context, nc *nats.Conn, regs []api.Registration, endpoint string) (answers []T, missing []string, err error) {
	type result struct {
		val  T
		id   string
		skip bool
		err  error
	}
	results := make([]result, len(regs))
	var wg sync.WaitGroup
	for i, r := range regs {
		wg.Add(1)
		go func(i int, r api.Registration) {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, RequestTimeout)
			defer cancel()
			msg, err := nc.RequestWithContext(rctx, api.PodSubject(r.PodID, endpoint), nil)
			switch {
			case errors.Is(err, nats.ErrNoResponders):
				results[i] = result{skip: true}
			case err != nil:
				results[i] = result{id: r.PodID, err: err}
			default:
				var v T
				if err := json.Unmarshal(msg.Data, &v); err != nil {
					results[i] = result{id: r.PodID, err: fmt.Errorf("pod %s: bad answer: %v", r.PodID, err)}
				} else {
					results[i] = result{val: v}
				}
			}
		}(i, r)
	}
	wg.Wait()
	for _, r := range results {
		switch {
		case r.skip:
		case r.err != nil:
			missing = append(missing, r.id)
		default:
			answers = append(answers, r.val)
		}
	}
	return answers, missing, nil
}

// Watcher keeps the registry in memory for a long-lived process (the
// api-server), so that each request skips reading the bucket.
type Watcher struct {
	mu   sync.Mutex
	regs map[string]entry
	// last is when the watch last delivered an update.
	last time.Time
	w    jetstream.KeyWatcher
}

type entry struct {
	reg  api.Registration
	seen time.Time
}

// Watch starts watching the registry bucket kv until Stop, waiting at most
// timeout for the current registrations.
func Watch(kv jetstream.KeyValue, timeout time.Duration) (*Watcher, error) {
	w, err := kv.WatchAll(context.Background())
	if err != nil {
		return nil, err
	}
	rw := &Watcher{regs: map[string]entry{}, w: w}
	ready := make(chan struct{})
	go func() {
		once := sync.Once{}
		for e := range w.Updates() {
			if e == nil {
				once.Do(func() { close(ready) })
				continue
			}
			rw.mu.Lock()
			rw.last = time.Now()
			if e.Operation() != jetstream.KeyValuePut {
				delete(rw.regs, e.Key())
			} else {
				var r api.Registration
				if json.Unmarshal(e.Value(), &r) == nil {
					rw.regs[e.Key()] = entry{r, time.Now()}
				}
			}
			rw.mu.Unlock()
		}
		once.Do(func() { close(ready) })
	}()
	select {
	case <-ready:
	case <-time.After(timeout):
		_ = w.Stop()
		return nil, fmt.Errorf("timed out after %s loading the pod registry", timeout)
	}
	return rw, nil
}

// Current returns the registrations refreshed within ttl, sorted by id.
// While the watch itself is silent (pods refresh every ttl/3, so a
// silent watch is a stalled one: its server died and it is being
// rebuilt), nothing expires: the registrations last known are returned,
// and asking a pod that is gone costs only its "no responders".
func (rw *Watcher) Current(ttl time.Duration) []api.Registration {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	stalled := time.Since(rw.last) > ttl/2
	var out []api.Registration
	for k, e := range rw.regs {
		if !stalled && time.Since(e.seen) > ttl {
			delete(rw.regs, k) // expired by age: the bucket sends no event
			continue
		}
		out = append(out, e.reg)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PodID < out[j].PodID })
	return out
}

// Stop ends the watch.
func (rw *Watcher) Stop() { _ = rw.w.Stop() }
