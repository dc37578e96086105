package scheduler_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/runner"
	"github.com/fabricops/fabric/fabric/pods/scheduler"
)

// steps parses a pipeline in the --> form into a run request.
func steps(t *testing.T, text string) api.RunRequest {
	t.Helper()
	p, err := tenant.LoadPipeline([]byte(text), "t.pipeline")
	if err != nil {
		t.Fatal(err)
	}
	return api.RunRequest{Pipeline: "t", Steps: p.Data.Sequence}
}

// long runs about d seconds; quick at once.
func long(t *testing.T, d string) api.RunRequest {
	return steps(t, "@c:timed-loop interval = 0.05 & duration = "+d+" --> @dm:empty --> @dm:addrow i = $iteration")
}

func quick(t *testing.T) api.RunRequest { return steps(t, "@dm:empty --> @dm:addrow a = 1") }

// fabric starts an api-server, a worker that takes one job at a time and
// a placer that leads (with a queue of maxQueue), and returns a client.
func fabric(t *testing.T, maxQueue int, leads bool) *client.Client {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	cfg := f.Configs["a"]
	w, err := runner.Start(runner.Options{Config: cfg, Pods: []string{api.Worker}, Site: "local", CapacityFilter: "pod_usage_active_jobs < 1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	if err := w.WaitVisible(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	regs := func() []api.Registration {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		r, _ := registry.List(ctx, c.JetStream())
		return r
	}
	pl := scheduler.NewPlacer(c.Conn(), func() bool { return leads }, regs, scheduler.PlacerOptions{MaxQueue: maxQueue, Tick: 50 * time.Millisecond})
	stop, err := pl.Start(context.Background(), c.JetStream())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return c
}

// TestQueue: a run that finds the worker busy waits and starts when the
// job before it ends; beyond the queue's bound a run is refused; a run
// whose max wait passes fails saying so.
func TestQueue(t *testing.T) {
	c := fabric(t, 2, true)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		busy    string        // how long the job holding the worker runs
		maxWait time.Duration // of the runs after it
		extra   int           // runs started alongside, to fill the queue
		want    string        // the error of the run, "" when it starts
	}{
		{name: "waits then starts", busy: "1", maxWait: 20 * time.Second},
		{name: "max wait passes", busy: "3", maxWait: 500 * time.Millisecond, want: "no worker had capacity for the job within 0.5 s"},
		{name: "queue full", busy: "3", maxWait: 2 * time.Second, extra: 2, want: "the scheduler's queue is full: 2 jobs already wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, err := c.Run(ctx, long(t, tc.busy), client.Placement{})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for range tc.extra {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, _ = c.Run(ctx, quick(t), client.Placement{MaxWait: tc.maxWait})
				}()
			}
			if tc.extra > 0 {
				time.Sleep(300 * time.Millisecond) // they wait in the queue
			}
			start := time.Now()
			resp, err := c.Run(ctx, quick(t), client.Placement{MaxWait: tc.maxWait})
			took := time.Since(start)
			wg.Wait()
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("run: %v, want %q", err, tc.want)
				}
			} else {
				if err != nil || resp.JobID == "" {
					t.Fatalf("run: %+v, %v, want it started", resp, err)
				}
				j, err := c.Job(ctx, first.JobID)
				if err != nil || api.JobActive(j.Status) {
					t.Fatalf("the second started while the first was %s (%v), after %s", j.Status, err, took)
				}
			}
			if _, err := c.Wait(ctx, first.JobID, 20*time.Second, nil); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // the queue drains
		})
	}
}

// TestNoLeader: with schedulers that do not lead, a run fails in one line
// within the acknowledgement's bound; with none at all, at once.
func TestNoLeader(t *testing.T) {
	c := fabric(t, 10, false)
	start := time.Now()
	_, err := c.Run(context.Background(), quick(t), client.Placement{})
	if err == nil || !strings.Contains(err.Error(), "no scheduler leads") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("run with no leader: %v", err)
	}
	if took := time.Since(start); took > api.PlaceAckTimeout+2*time.Second {
		t.Errorf("the run failed after %s, want within %s", took, api.PlaceAckTimeout)
	}
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	c2, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := c2.Verify(context.Background(), quick(t), client.Placement{}); err == nil || !strings.Contains(err.Error(), "no scheduler is running") {
		t.Fatalf("verify with no scheduler: %v", err)
	}
}
