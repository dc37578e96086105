package controller

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go/jetstream"
)

// The controller's state, kept in api.ControllerBucket so that a new
// leader goes on where the last one stopped: a record per deployment
// ("d.<id>") and per schedule ("s.<name>").

// deploymentState is what the controller keeps of a deployment.
type deploymentState struct {
	// Services are the service entries' instances, by label.
	Services map[string]*service `json:"services,omitempty"`
	// Scheduled are the scheduled entries' runs, by label.
	Scheduled map[string]*cronState `json:"scheduled,omitempty"`
}

// service is what the controller keeps of a service entry.
type service struct {
	// Jobs are the instances started and not yet seen ending.
	Jobs []instance `json:"jobs"`
	// Lost are the jobs that failed or were stopped and are not
	// re-created yet; Completed those that ended well (a service that
	// reads a batch per job) and are not followed yet.
	Lost      []string `json:"lost,omitempty"`
	Completed []string `json:"completed,omitempty"`
	// LostRestarts are the restart counts of the lost jobs whose
	// instance was re-created before (by job id): its replacement counts
	// on from there.
	LostRestarts map[string]int `json:"lost_restarts,omitempty"`
	// Restarts counts the instances re-created, all of them.
	Restarts int `json:"restarts"`
	// Failures counts the instances in a row that ended soon after
	// they started; past one, starts back off until NotBefore.
	Failures  int       `json:"failures"`
	NotBefore time.Time `json:"not_before,omitzero"`
	// Problem is the last reason the entry could not start, reported
	// once until it changes.
	Problem string `json:"problem,omitempty"`
}

// instance is a job the controller started for a service entry.
type instance struct {
	JobID   string    `json:"jobid"`
	PodID   string    `json:"pod_id"`
	Started time.Time `json:"started"`
	// Restarts counts the times this instance was re-created: the
	// activity feed's restart count, per instance.
	Restarts int `json:"restarts,omitempty"`
}

// cronState is what the controller keeps of a cron.
type cronState api.CronState

// keepRuns is how many runs a cron keeps.
const keepRuns = 20

func (c *cronState) add(r api.CronRun) {
	c.Runs = append(c.Runs, r)
	if len(c.Runs) > keepRuns {
		c.Runs = c.Runs[len(c.Runs)-keepRuns:]
	}
}

func deploymentKey(id string) string { return api.DeploymentStatePrefix + store.Key(id) }
func scheduleKey(name string) string { return api.ScheduleStatePrefix + store.Key(name) }

// stateKV opens (creating when missing) the controller's bucket.
func stateKV(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	return store.EnsureKV(ctx, js, jetstream.KeyValueConfig{Bucket: api.ControllerBucket, Description: "deployment controller state", History: 1})
}

// states are the records of the bucket as this leader last wrote them.
type states struct {
	kv   jetstream.KeyValue
	vals map[string][]byte // the JSON as read or last written
	revs map[string]uint64
}

// load reads every record.
func loadStates(ctx context.Context, kv jetstream.KeyValue) (*states, error) {
	s := &states{kv: kv, vals: map[string][]byte{}, revs: map[string]uint64{}}
	es, err := store.Entries(ctx, kv)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		s.vals[e.Key()] = e.Value()
		s.revs[e.Key()] = e.Revision()
	}
	return s, nil
}

// get decodes the record key into v (left as it is when there is none).
func (s *states) get(key string, v any) {
	if data, ok := s.vals[key]; ok {
		_ = json.Unmarshal(data, v)
	}
}

// errDeposed says another scheduler wrote the controller's state: this
// one no longer leads.
var errDeposed = errors.New("the controller's state was written by another scheduler")

// put writes v as the record key when it changed, only over the revision
// this leader last saw.
func (s *states) put(ctx context.Context, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if string(data) == string(s.vals[key]) {
		return nil
	}
	var rev uint64
	err = s.write(ctx, func(ctx context.Context) (err error) {
		if r, ok := s.revs[key]; ok {
			rev, err = s.kv.Update(ctx, key, data, r)
		} else {
			rev, err = s.kv.Create(ctx, key, data)
		}
		return err
	})
	if err != nil {
		return err
	}
	s.vals[key], s.revs[key] = data, rev
	return nil
}

// write runs the write f of a record at the revision this leader last
// saw, within store.Timeout, asking again when an attempt gets no answer
// (a server restarting loses it): a lost write does not hold the pass up
// for the pass's whole deadline. A write that landed the first time fails
// the second on its revision, which reads as deposed: the next pass reads
// the state again.
func (s *states) write(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	err := store.Retry(ctx, f)
	// Update and a delete at a revision say ErrKeyRevisionMismatch, Create
	// ErrKeyExists (both codes of a replicated stream included).
	if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return errDeposed
	}
	return err
}

// drop deletes the record key.
func (s *states) drop(ctx context.Context, key string) error {
	if _, ok := s.vals[key]; !ok {
		return nil
	}
	err := s.write(ctx, func(ctx context.Context) error {
		return s.kv.Delete(ctx, key, jetstream.LastRevision(s.revs[key]))
	})
	if err != nil {
		return err
	}
	delete(s.vals, key)
	delete(s.revs, key)
	return nil
}

// keys returns the keys with prefix.
func (s *states) keys(prefix string) []string {
	var out []string
	for k := range s.vals {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}
