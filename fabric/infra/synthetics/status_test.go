package synthetics_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/synthetics"
	"github.com/fabricops/fabric/fabric/lib/probes"
)

// TestClaimAndPrune: of pods racing for a due run exactly one claims it,
// none again before the interval, one after it; results are kept per
// site, and Prune drops those of checks that are gone.
func TestClaimAndPrune(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	st, err := store.Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := synthetics.OpenStatus(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	c := probes.Check{Profile: "p", Probe: "home", Component: "front", Interval: 10 * time.Second}
	now := time.Now()
	race := func(at time.Time) int {
		var mu sync.Mutex
		var wg sync.WaitGroup
		won := 0
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				ok, _, err := s.Claim(ctx, c, "dc1", string(rune('a'+i)), at)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			}(i)
		}
		wg.Wait()
		return won
	}
	if n := race(now); n != 1 {
		t.Fatalf("%d pods claimed the first run", n)
	}
	if n := race(now.Add(5 * time.Second)); n != 0 {
		t.Fatalf("%d pods claimed a run before the interval passed", n)
	}
	if n := race(now.Add(10 * time.Second)); n != 1 {
		t.Fatalf("%d pods claimed the next run", n)
	}
	// Another site runs the same check on its own.
	if ok, _, _ := s.Claim(ctx, c, "dc2", "z", now.Add(11*time.Second)); !ok {
		t.Error("the run at another site was not claimed")
	}
	gone := probes.Check{Profile: "old", Probe: "x"}
	for _, r := range []struct {
		c    probes.Check
		site string
	}{{c, "dc1"}, {c, "dc2"}, {gone, ""}} {
		if err := s.Save(ctx, r.c, r.site, probes.Result{Profile: r.c.Profile, Check: r.c.Probe, Component: r.c.Component, Site: r.site, Status: probes.StatusUp}); err != nil {
			t.Fatal(err)
		}
	}
	if rs, err := s.Last(ctx); err != nil || len(rs) != 3 {
		t.Fatalf("%d results (%v), want 3", len(rs), err)
	}
	if err := s.Prune(ctx, map[string]bool{c.Key(): true}); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Last(ctx)
	if err != nil || len(rs) != 2 || rs[0].Site != "dc1" || rs[1].Site != "dc2" {
		t.Fatalf("after pruning: %+v (%v)", rs, err)
	}
}
