// Package synthetics keeps the results of the synthetic profiles'
// checks (package fabric/lib/probes): workers of a profile's sites claim
// each run of a check in the tenant's status bucket (so that one worker
// of a site runs it), write each result to the system stream
// api.StreamSynthetics and keep the last result per check here, which
// synthetics status reads.
package synthetics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/probes"
	"github.com/nats-io/nats.go/jetstream"
)

// Bucket is the tenant's KV bucket of the last result of each check
// (keys "r.") and of who claimed its latest run when (keys "c.").
const Bucket = "fabric_synthetics_status"

// Status is a tenant's status bucket.
type Status struct{ kv jetstream.KeyValue }

// OpenStatus opens (making it when missing) the tenant's status bucket.
func OpenStatus(ctx context.Context, st *store.Store) (*Status, error) {
	kv, err := st.KV(ctx, jetstream.KeyValueConfig{Bucket: Bucket, History: 1,
		Description: "the last result of each synthetic check"})
	if err != nil {
		return nil, err
	}
	return &Status{kv: kv}, nil
}

// key is a check's key at a site ("" for a profile that names no site).
func key(prefix string, c probes.Check, site string) string {
	return prefix + store.Key(c.Key()+"@"+site)
}

// claim is the value of a claim: who runs a check, from when.
type claim struct {
	Check string    `json:"check"` // the check's Key
	PodID string    `json:"pod_id"`
	At    time.Time `json:"at"`
}

// Claim claims the run of check c at site due at now: true when this pod
// runs it (no other pod of the site will until c.Next(now)); otherwise
// next is when it is due again.
func (s *Status) Claim(ctx context.Context, c probes.Check, site, podID string, now time.Time) (ok bool, next time.Time, err error) {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	k := key("c.", c, site)
	value, _ := json.Marshal(claim{Check: c.Key(), PodID: podID, At: now})
	e, err := s.kv.Get(ctx, k)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		if _, err := s.kv.Create(ctx, k, value); err != nil {
			return false, now.Add(time.Second), nil // another pod was first
		}
		return true, c.Next(now), nil
	}
	if err != nil {
		return false, now.Add(time.Second), err
	}
	var last claim
	_ = json.Unmarshal(e.Value(), &last)
	if due := c.Next(last.At); now.Before(due) {
		return false, due, nil
	}
	if _, err := s.kv.Update(ctx, k, value, e.Revision()); err != nil {
		return false, now.Add(time.Second), nil // another pod was first
	}
	return true, c.Next(now), nil
}

// Save keeps r as the last result of check c at site.
func (s *Status) Save(ctx context.Context, c probes.Check, site string, r probes.Result) error {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = s.kv.Put(ctx, key("r.", c, site), data)
	return err
}

// Last returns the last result of every check, by profile, check,
// component and site.
func (s *Status) Last(ctx context.Context) ([]probes.Result, error) {
	entries, err := store.Entries(ctx, s.kv)
	if err != nil {
		return nil, err
	}
	var out []probes.Result
	for _, e := range entries {
		if !strings.HasPrefix(e.Key(), "r.") {
			continue
		}
		var r probes.Result
		if err := json.Unmarshal(e.Value(), &r); err != nil {
			return nil, fmt.Errorf("the status of %s is corrupt: %v", e.Key(), err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Profile != b.Profile {
			return a.Profile < b.Profile
		}
		if a.Check != b.Check {
			return a.Check < b.Check
		}
		if a.Component != b.Component {
			return a.Component < b.Component
		}
		return a.Site < b.Site
	})
	return out, nil
}

// Prune deletes the results and claims of the checks that no longer are
// (their profile, probe or component deleted), at every site: keep holds
// the Key of each check that is.
func (s *Status) Prune(ctx context.Context, keep map[string]bool) error {
	entries, err := store.Entries(ctx, s.kv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	for _, e := range entries {
		var k string
		if strings.HasPrefix(e.Key(), "c.") {
			var c claim
			_ = json.Unmarshal(e.Value(), &c)
			k = c.Check
		} else {
			var r probes.Result
			_ = json.Unmarshal(e.Value(), &r)
			k = probes.Check{Profile: r.Profile, Probe: r.Check, Component: r.Component}.Key()
		}
		if !keep[k] {
			if err := s.kv.Purge(ctx, e.Key()); err != nil {
				return err
			}
		}
	}
	return nil
}

// KeyAt names check c at site among a worker's checks.
func KeyAt(c probes.Check, site string) string { return key("", c, site) }
