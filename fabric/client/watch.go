package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// WatchLogs calls fn with every log line of every pod until ctx ends.
func (c *Client) WatchLogs(ctx context.Context, fn func(api.LogLine)) error {
	return watchSubject(ctx, c, api.SubjectLogs+".>", fn)
}

// watchSubject calls fn with every message on subject that decodes as a
// T, until ctx ends.
func watchSubject[T any](ctx context.Context, c *Client, subject string, fn func(T)) error {
	ch := make(chan *nats.Msg, 256)
	sub, err := c.nc.ChanSubscribe(subject, ch)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-ch:
			var v T
			if json.Unmarshal(m.Data, &v) == nil {
				fn(v)
			}
		}
	}
}

// quietBuckets change all the time and say nothing a user watches for:
// the pods' heartbeats and the leaders' leases.
var quietBuckets = map[string]bool{api.PodsBucket: true, api.LeasesBucket: true}

// WatchChanges calls fn with every change of a record in the tenant's KV
// buckets (artifacts, datasets, objects, jobs, ...) until ctx ends: the
// buckets there when it starts and those made meanwhile (looked for
// every bucketPoll), but the pods' registry and the leases.
func (c *Client) WatchChanges(ctx context.Context, fn func(api.Change)) error {
	js := c.JetStream()
	changes := make(chan api.Change, 256)
	var wg sync.WaitGroup
	defer wg.Wait()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	watched := map[string]bool{}
	// look starts a watcher for each bucket not watched yet: of updates
	// only at the start, of everything for a bucket made later.
	look := func(first bool) error {
		lctx, cancel := context.WithTimeout(wctx, store.Timeout)
		defer cancel()
		names := js.KeyValueStoreNames(lctx)
		var fresh []string
		for n := range names.Name() {
			if !quietBuckets[n] && !watched[n] {
				fresh = append(fresh, n)
			}
		}
		if err := names.Error(); err != nil {
			return fmt.Errorf("listing the tenant's buckets: %w", err)
		}
		for _, b := range fresh {
			kv, err := js.KeyValue(lctx, b)
			if err != nil {
				continue // deleted meanwhile
			}
			var opts []jetstream.WatchOpt
			if first {
				opts = append(opts, jetstream.UpdatesOnly())
			}
			w, err := kv.WatchAll(wctx, opts...)
			if err != nil {
				return fmt.Errorf("watching %s: %w", b, err)
			}
			watched[b] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer w.Stop()
				for {
					select {
					case <-wctx.Done():
						return
					case e, ok := <-w.Updates():
						if !ok {
							return
						}
						if e == nil {
							continue
						}
						ch := api.Change{Time: api.Timestamp(e.Created()), Bucket: b, Key: e.Key(), Operation: operation(e.Operation()), Revision: e.Revision()}
						select {
						case changes <- ch:
						case <-wctx.Done():
							return
						}
					}
				}
			}()
		}
		return nil
	}
	if err := look(true); err != nil {
		return err
	}
	poll := time.NewTicker(bucketPoll)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
			if err := look(false); err != nil && ctx.Err() == nil {
				return err
			}
		case ch := <-changes:
			fn(ch)
		}
	}
}

// bucketPoll is how often WatchChanges looks for new buckets.
const bucketPoll = 2 * time.Second

func operation(op jetstream.KeyValueOp) string {
	switch op {
	case jetstream.KeyValueDelete:
		return "delete"
	case jetstream.KeyValuePurge:
		return "purge"
	}
	return "put"
}
