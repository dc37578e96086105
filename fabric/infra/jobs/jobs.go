// Package jobs keeps the tenant's job records (SPEC 2.9) in KV and their
// outputs in the object store. Workers write the records of the jobs they
// run; the api-server fails the jobs of workers that died and purges old
// outputs; the client lists, resolves and reads them.
package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go/jetstream"
)

// NewID returns a new job id: 32 hex characters.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// OutputPath is where a job's output is kept in the object store.
func OutputPath(jobID string) string { return api.OutputsFolder + "/" + jobID + ".parquet" }

// Records are the job records of a tenant.
type Records struct{ s *store.Store }

// Open returns the job records of the store's tenant.
func Open(s *store.Store) *Records { return &Records{s: s} }

// Store returns the store the records are in.
func (r *Records) Store() *store.Store { return r.s }

// Create writes a new job's record.
func (r *Records) Create(ctx context.Context, j api.Job) error {
	now := api.Timestamp(time.Now())
	if j.Created == "" {
		j.Created = now
	}
	j.Updated = now
	return r.s.Put(ctx, api.JobsBucket, j.JobID, j, 0)
}

// Get returns a job's record.
// Watch calls each with the job's record as it is now and at every change,
// until each returns false or ctx ends (ctx's error). Waiting on a watch
// tells a job's end at once, where polling would tell it late.
func (r *Records) Watch(ctx context.Context, id string, each func(api.Job) bool) error {
	w, err := r.s.WatchKey(ctx, api.JobsBucket, id)
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return fmt.Errorf("the watch of job %s ended", id)
			}
			if e == nil {
				continue // the current value has been delivered
			}
			var j api.Job
			if json.Unmarshal(e.Value(), &j) != nil {
				continue
			}
			if !each(j) {
				return nil
			}
		}
	}
}

func (r *Records) Get(ctx context.Context, id string) (api.Job, error) {
	var j api.Job
	_, err := r.s.Get(ctx, api.JobsBucket, id, &j)
	if errors.Is(err, store.ErrNotFound) {
		return j, fmt.Errorf("no job %s", id)
	}
	return j, err
}

// Update changes a job's record with fn, retrying when someone else
// changed it meanwhile; fn returning ErrUnchanged leaves it as it is.
func (r *Records) Update(ctx context.Context, id string, fn func(*api.Job) error) (api.Job, error) {
	for attempt := 0; ; attempt++ {
		var j api.Job
		rev, err := r.s.Get(ctx, api.JobsBucket, id, &j)
		if errors.Is(err, store.ErrNotFound) {
			return j, fmt.Errorf("no job %s", id)
		}
		if err != nil {
			return j, err
		}
		if err := fn(&j); err != nil {
			if errors.Is(err, ErrUnchanged) {
				return j, nil
			}
			return j, err
		}
		j.Updated = api.Timestamp(time.Now())
		err = r.s.Put(ctx, api.JobsBucket, id, j, rev)
		if err == nil || attempt >= 10 {
			return j, err
		}
	}
}

// ErrUnchanged, returned by an Update function, leaves the record as it is.
var ErrUnchanged = errors.New("unchanged")

// Finish moves an active job to a final status, unless it already has
// one (an eviction wins over the failure it causes).
func (r *Records) Finish(ctx context.Context, id, status, reason string, set func(*api.Job)) (api.Job, error) {
	return r.Update(ctx, id, func(j *api.Job) error {
		if !api.JobActive(j.Status) {
			return ErrUnchanged
		}
		j.Status, j.Reason = status, reason
		if set != nil {
			set(j)
		}
		return nil
	})
}

// List returns every job record, the oldest first.
func (r *Records) List(ctx context.Context) ([]api.Job, error) {
	out, err := store.ListOf[api.Job](ctx, r.s, api.JobsBucket)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Created < out[k].Created })
	return out, nil
}

// Resolve finds the one job whose id starts with partial (a whole id
// too). No match or several are errors; several are listed.
func (r *Records) Resolve(ctx context.Context, partial string) (api.Job, error) {
	partial = strings.ToLower(strings.TrimSpace(partial))
	if partial == "" {
		return api.Job{}, errors.New("a job id is needed")
	}
	if len(partial) == 32 {
		if j, err := r.Get(ctx, partial); err == nil {
			return j, nil
		}
	}
	// The keys are the job ids: only the records of those that match are
	// read, in the order List gives.
	ids, err := r.s.Keys(ctx, api.JobsBucket)
	if err != nil {
		return api.Job{}, err
	}
	var matches []api.Job
	for _, id := range ids {
		if !strings.HasPrefix(id, partial) {
			continue
		}
		j, err := r.Get(ctx, id)
		if err == nil && j.JobID == id {
			matches = append(matches, j)
		}
	}
	sort.SliceStable(matches, func(i, k int) bool { return matches[i].Created < matches[k].Created })
	switch len(matches) {
	case 0:
		return api.Job{}, fmt.Errorf("no job id starts with %q", partial)
	case 1:
		return matches[0], nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "job id %q matches %d jobs; give more of it:", partial, len(matches))
	for _, j := range matches {
		fmt.Fprintf(&b, " %s (%s, %s)", j.JobID, j.Pipeline, j.Status)
	}
	return api.Job{}, errors.New(b.String())
}

// Active is the tenant's active jobs, kept in memory by watching their
// records: a long-lived process (the api-server) looks at them without
// reading the bucket.
type Active struct {
	mu   sync.Mutex
	jobs map[string]api.Job
	w    jetstream.KeyWatcher
}

// WatchActive starts keeping the active jobs until Stop. It returns once
// the jobs active now are known (or ctx ends), so that a caller never
// takes a job that runs for one that does not.
func (r *Records) WatchActive(ctx context.Context) (*Active, error) {
	w, err := r.s.Watch(ctx, api.JobsBucket)
	if err != nil {
		return nil, err
	}
	a := &Active{jobs: map[string]api.Job{}, w: w}
	loaded := make(chan struct{})
	go func() {
		var once sync.Once
		defer once.Do(func() { close(loaded) })
		for e := range w.Updates() {
			if e == nil {
				once.Do(func() { close(loaded) })
				continue
			}
			var j api.Job
			put := e.Operation() == jetstream.KeyValuePut && json.Unmarshal(e.Value(), &j) == nil
			a.mu.Lock()
			if put && api.JobActive(j.Status) {
				a.jobs[e.Key()] = j
			} else {
				delete(a.jobs, e.Key())
			}
			a.mu.Unlock()
		}
	}()
	select {
	case <-loaded:
	case <-ctx.Done():
		_ = w.Stop()
		return nil, fmt.Errorf("timed out loading the active jobs: %w", ctx.Err())
	}
	return a, nil
}

// Jobs returns the active jobs, in no order.
func (a *Active) Jobs() []api.Job {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]api.Job, 0, len(a.jobs))
	for _, j := range a.jobs {
		out = append(out, j)
	}
	return out
}

// Stop ends the watch.
func (a *Active) Stop() { _ = a.w.Stop() }

// FailOrphans marks Failed the active jobs of workers that are no longer
// live (live holds the ids of the live pods) and returns their ids.
// Records newer than grace are left alone: their worker may not be
// registered yet. It reads and writes only the records of orphans.
func (r *Records) FailOrphans(ctx context.Context, active []api.Job, live map[string]bool, grace time.Duration) []string {
	var failed []string
	for _, j := range active {
		if !api.JobActive(j.Status) || live[j.PodID] || age(j.Updated) < grace {
			continue
		}
		reason := fmt.Sprintf("worker %s stopped while the job was %s", j.PodID, strings.ToLower(j.Status))
		if _, err := r.Finish(ctx, j.JobID, api.JobFailed, reason, nil); err == nil {
			failed = append(failed, j.JobID)
		}
	}
	return failed
}

// PurgeOutputs deletes the outputs of finished jobs that ended before
// cutoff (the zero time: all of them) and returns how many it deleted.
func (r *Records) PurgeOutputs(ctx context.Context, cutoff time.Time) (int, error) {
	all, err := r.List(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, j := range all {
		if j.Output == "" || api.JobActive(j.Status) {
			continue
		}
		if !cutoff.IsZero() && !parseTime(j.Updated).Before(cutoff) {
			continue
		}
		if err := r.s.DeleteBlob(ctx, j.Output); err != nil && !errors.Is(err, store.ErrNotFound) {
			return n, err
		}
		if _, err := r.Update(ctx, j.JobID, func(j *api.Job) error { j.Output, j.SmallOutput = "", nil; return nil }); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func age(ts string) time.Duration {
	t := parseTime(ts)
	if t.IsZero() {
		return time.Duration(1 << 62)
	}
	return time.Since(t)
}

func parseTime(ts string) time.Time {
	t, err := api.ParseTimestamp(ts)
	if err != nil {
		return time.Time{}
	}
	return t
}
