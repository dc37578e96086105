package placement

import (
	"errors"
	"strings"
	"testing"
)

func worker(id, site string, active int) Worker {
	return Worker{ID: id, Site: site, ActiveJobs: active, CapacityFilter: "pod_usage_active_jobs < 3"}
}

// TestPick: sites as whole-name patterns or names, the least busy worker
// first, picks in a row spread over the workers and stop at capacity, and
// the error says why each worker was passed over.
func TestPick(t *testing.T) {
	pods := []Worker{worker("a", "local", 0), worker("b", "local", 1), worker("c", "nyc", 0)}
	for _, tc := range []struct {
		name string
		pl   Placement
		want string // the pod id, or the error's text
	}{
		{"any site, least busy", Placement{}, "a|c"},
		{"star is any", Placement{Site: "*"}, "a|c"},
		{"pattern", Placement{Site: "loc.*"}, "a"},
		{"pattern matches whole names", Placement{Site: "loc"}, "no worker matches: of 3 workers, 3 not at site loc"},
		{"quoted pattern", Placement{Site: `\Qnyc`}, "c"},
		{"name, any case", Placement{Site: "NYC", SiteIsName: true}, "c"},
		{"name is not a pattern", Placement{Site: "n.c", SiteIsName: true}, "no worker matches: of 3 workers, 3 not at site n.c"},
		{"bad pattern", Placement{Site: "(loc"}, `--site "(loc" is not a valid name or pattern`},
		{"label filter", Placement{LFilter: "site_name is 'nyc'"}, "c"},
		{"bad filter", Placement{RFilter: "cpu >>= 1"}, "--rfilter:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Pick(pods, tc.pl)
			got := w.ID
			if err != nil {
				got = err.Error()
			}
			ok := false
			for _, want := range strings.Split(tc.want, "|") {
				ok = ok || got == want || err != nil && strings.HasPrefix(got, want)
			}
			if !ok {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := Pick(nil, Placement{}); err != ErrNoWorker {
		t.Errorf("no workers: %v", err)
	}
	// A worker in maintenance takes no new job.
	inMaintenance := worker("m", "local", 0)
	inMaintenance.Maintenance = true
	if w, err := Pick([]Worker{inMaintenance, worker("b", "local", 2)}, Placement{}); err != nil || w.ID != "b" {
		t.Errorf("with a worker in maintenance: %v %v", w.ID, err)
	}
	if _, err := Pick([]Worker{inMaintenance}, Placement{}); err == nil || err.Error() != "no worker matches: of 1 workers, 1 in maintenance" {
		t.Errorf("only a worker in maintenance: %v", err)
	}
	// Picks in a row spread, and stop at each worker's capacity.
	p := NewPicker([]Worker{worker("a", "x", 0), worker("b", "x", 0)})
	n := map[string]int{}
	for i := 0; i < 6; i++ {
		w, err := p.Pick(Placement{})
		if err != nil {
			t.Fatalf("pick %d: %v", i, err)
		}
		n[w.ID]++
	}
	if n["a"] != 3 || n["b"] != 3 {
		t.Errorf("six picks: %v, want three each", n)
	}
	if _, err := p.Pick(Placement{}); err == nil || !strings.Contains(err.Error(), "2 over capacity") || !errors.Is(err, ErrNoCapacity) {
		t.Errorf("a seventh pick over capacity: %v", err)
	}
	if _, err := p.Pick(Placement{Site: "y"}); err == nil || errors.Is(err, ErrNoCapacity) {
		t.Errorf("a pick no worker matches is not a capacity wait: %v", err)
	}
}

// TestPickApart: a service's instances go to the workers running the
// fewest of its siblings, whatever load the workers report (a report may
// still count an instance that is stopping); then the least busy.
func TestPickApart(t *testing.T) {
	for _, tc := range []struct {
		name     string
		workers  []Worker
		siblings map[string]int
		want     string
	}{
		{"a sibling outweighs a stale load", []Worker{worker("a", "x", 1), worker("b", "x", 2)}, map[string]int{"a": 1}, "b"},
		{"fewest siblings", []Worker{worker("a", "x", 0), worker("b", "x", 0), worker("c", "x", 0)}, map[string]int{"a": 2, "b": 1}, "c"},
		{"equal siblings: least busy", []Worker{worker("a", "x", 2), worker("b", "x", 0)}, map[string]int{"a": 1, "b": 1}, "b"},
		{"none: as Pick", []Worker{worker("a", "x", 1), worker("b", "x", 0)}, nil, "b"},
		{"capacity still holds", []Worker{worker("a", "x", 0), worker("b", "x", 3)}, map[string]int{"a": 1}, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 20; i++ { // ties are broken at random
				w, err := NewPicker(tc.workers).PickApart(Placement{}, tc.siblings)
				if err != nil || w.ID != tc.want {
					t.Fatalf("got %q (%v), want %q", w.ID, err, tc.want)
				}
			}
		})
	}
}
