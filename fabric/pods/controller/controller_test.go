package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/controller"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// tenantConn is a connection to the test fabric's tenant "a", with its
// data layer, job records and artifacts.
type tenantConn struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	data *tenant.Data
	recs *jobs.Records
	repo *artifact.Repo
}

func connect(t *testing.T, f *fabrictest.Fabric) *tenantConn { return connectTo(t, f, "a") }

func connectTo(t *testing.T, f *fabrictest.Fabric, tenantName string) *tenantConn {
	t.Helper()
	nc, err := bus.Connect(f.Configs[tenantName], "controller-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	data := tenant.New(nc)
	st, err := data.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &tenantConn{nc: nc, js: js, data: data, recs: jobs.Open(st), repo: &artifact.Repo{Store: st}}
}

func (tc *tenantConn) addPipeline(t *testing.T, name, text string) {
	t.Helper()
	p, err := tenant.LoadPipeline([]byte(text), name+".pipeline")
	if err != nil {
		t.Fatal(err)
	}
	p.Name = name
	if _, err := tc.data.AddPipeline(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

func (tc *tenantConn) add(t *testing.T, k *artifact.Kind, doc string, overwrite bool) {
	t.Helper()
	if _, err := tc.repo.Add(context.Background(), k, []byte(doc), overwrite); err != nil {
		t.Fatal(err)
	}
}

// owned returns the active jobs of a deployment's service label.
func (tc *tenantConn) owned(t *testing.T, id, label string) []api.Job {
	t.Helper()
	all, err := tc.recs.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []api.Job
	for _, j := range all {
		if o := j.Owner; o != nil && o.Deployment == id && o.Label == label && api.JobActive(j.Status) {
			out = append(out, j)
		}
	}
	return out
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %s", timeout, what, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// activity returns the messages of the deployment activity feed.
func (tc *tenantConn) activity(t *testing.T) []string {
	t.Helper()
	var out []string
	_, err := streams.Read(context.Background(), tc.js, api.StreamDeploymentUpdates, streams.ReadOptions{}, func(m streams.Message) error {
		var a api.Activity
		if json.Unmarshal(m.Data, &a) == nil {
			out = append(out, a.Severity+" "+a.Message)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func hasLine(lines []string, parts ...string) bool {
	for _, l := range lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}

const servicePipeline = "@dm:read-stream name = 'events' & follow = true\n"

// bp is deployment web: %d instances of the service pipeline svc.
const bp = "id: web\nname: Web\nservice_pipelines:\n  - {name: svc, label: readers, instances: %d}\n"

// addService adds the stream events and the pipeline svc that reads it.
func (tc *tenantConn) addService(t *testing.T) {
	t.Helper()
	if _, err := streams.Add(context.Background(), tc.js, streams.Config{Name: "events"}); err != nil {
		t.Fatal(err)
	}
	tc.addPipeline(t, "svc", servicePipeline)
}

// TestServiceInstances: a deployment's two instances run on the two
// workers; an evicted one and one whose worker stops are re-created with
// an activity entry naming the job, the deployment and the restart
// count; scaling down stops one; disabling stops them all.
func TestServiceInstances(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker, api.Worker}})
	tc := connect(t, f)
	ctx := context.Background()
	tc.addService(t)
	tc.add(t, artifact.Deployment, fmt.Sprintf(bp, 2), false)

	two := func() (bool, string) {
		js := tc.owned(t, "web", "readers")
		pods := map[string]bool{}
		for _, j := range js {
			pods[j.PodID] = true
		}
		return len(js) == 2 && len(pods) == 2, fmt.Sprintf("%d jobs on %d workers", len(js), len(pods))
	}
	waitFor(t, 10*time.Second, "two instances on two workers", two)
	first := tc.owned(t, "web", "readers")

	// Evicted: re-created.
	victim := first[0]
	var out json.RawMessage
	req, _ := json.Marshal(api.EvictRequest{JobID: victim.JobID, Reason: "evicted by the test"})
	if m, err := tc.nc.Request(api.PodSubject(victim.PodID, api.EndpointEvict), req, 5*time.Second); err != nil {
		t.Fatal(err)
	} else {
		out = m.Data
	}
	_ = out
	waitFor(t, 10*time.Second, "the evicted instance re-created", func() (bool, string) {
		ok, s := two()
		return ok && hasLine(tc.activity(t), "Re-created job "+victim.JobID, "deployment Web (id web)", "restart count 1"), s
	})

	// The other instance's worker stops: re-created on the other one,
	// its first restart (the count is per instance, not per service).
	victim = first[1]
	if err := f.Runners["a"].StopPod(victim.PodID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the lost instance re-created", func() (bool, string) {
		js := tc.owned(t, "web", "readers")
		for _, j := range js {
			if j.PodID == victim.PodID {
				return false, "a job still on the stopped worker"
			}
		}
		return len(js) == 2 && hasLine(tc.activity(t), "Re-created job "+victim.JobID, "restart count 1"), fmt.Sprintf("%d jobs", len(js))
	})

	// A re-created instance evicted: its count goes on from its own.
	victim = tc.owned(t, "web", "readers")[0]
	if victim.Owner.Restarts < 1 {
		t.Fatalf("a re-created instance's job says %d restarts", victim.Owner.Restarts)
	}
	req, _ = json.Marshal(api.EvictRequest{JobID: victim.JobID, Reason: "evicted by the test"})
	if _, err := tc.nc.Request(api.PodSubject(victim.PodID, api.EndpointEvict), req, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("restart count %d", victim.Owner.Restarts+1)
	waitFor(t, 10*time.Second, "the evicted re-created instance re-created again", func() (bool, string) {
		return hasLine(tc.activity(t), "Re-created job "+victim.JobID, want), strings.Join(tc.activity(t), "\n")
	})

	// Scaled down to one.
	tc.add(t, artifact.Deployment, fmt.Sprintf(bp, 1), true)
	waitFor(t, 10*time.Second, "one instance", func() (bool, string) {
		n := len(tc.owned(t, "web", "readers"))
		return n == 1, fmt.Sprintf("%d jobs", n)
	})

	// Disabled: stopped.
	if _, err := tc.repo.SetEnabled(ctx, artifact.Deployment, "web", false); err != nil {
		t.Fatal(err)
	}
	// (The entry is written just after the job's record says it ended.)
	waitFor(t, 10*time.Second, "no instance, and an activity entry for the stopped one", func() (bool, string) {
		n := len(tc.owned(t, "web", "readers"))
		return n == 0 && hasLine(tc.activity(t), "is disabled or deleted"), fmt.Sprintf("%d jobs; activity:\n%s", n, strings.Join(tc.activity(t), "\n"))
	})
}

// clock is a controller's clock that the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestCron drives a controller's clock: a "* * * * *" schedule and a
// deployment's scheduled pipeline run once per minute, a paused schedule
// does not, and a schedule enabled again does not catch up.
func TestCron(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	tc := connect(t, f)
	ctx := context.Background()
	tc.addPipeline(t, "tick", "@dm:empty\n")
	tc.add(t, artifact.Schedule, "name: every-minute\npipeline: tick\ncron_expression: '* * * * *'\n", false)
	tc.add(t, artifact.Schedule, "name: paused\npipeline: tick\ncron_expression: '* * * * *'\nstatus: paused\n", false)
	tc.add(t, artifact.Deployment, "id: nightly\nname: Nightly\nscheduled_pipelines:\n  - {name: tick, label: each, cron_expression: '* * * * *'}\n", false)

	clk := &clock{t: time.Date(2026, 11, 25, 12, 0, 10, 0, time.UTC)}
	c, err := controller.New(ctx, tc.nc, func() bool { return true }, controller.Options{Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	runs := func() map[string]int {
		all, err := tc.recs.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, j := range all {
			if j.Owner != nil {
				n[j.Owner.Kind+" "+j.Owner.Label]++
			}
		}
		return n
	}
	for i, want := range []int{0, 0, 1, 1, 2, 3} {
		if err := c.Pass(ctx); err != nil {
			t.Fatal(err)
		}
		got := runs()
		if got["schedule every-minute"] != want || got["scheduled each"] != want || got["schedule paused"] != 0 {
			t.Fatalf("pass %d at %s: runs %v, want %d of each and none paused; activity:\n%s", i, clk.now().Format(time.TimeOnly), got, want, strings.Join(tc.activity(t), "\n"))
		}
		// 12:00:10, 12:00:40, 12:01:10, 12:01:40, 12:02:10, 12:03:10
		if i < 4 {
			clk.add(30 * time.Second)
		} else {
			clk.add(time.Minute)
		}
	}
	// The runs are kept for schedule-info, with their jobs.
	var cs api.CronState
	if _, err := tc.recs.Store().Get(ctx, api.ControllerBucket, api.ScheduleStatePrefix+"every-minute", &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs.Runs) != 3 || cs.Runs[0].JobID == "" || !cs.Runs[0].Time.Equal(time.Date(2026, 11, 25, 12, 1, 0, 0, time.UTC)) {
		t.Fatalf("the schedule's runs: %+v", cs.Runs)
	}
	// Enabled again after minutes paused: it runs at the next minute,
	// not at once.
	tc.add(t, artifact.Schedule, "name: paused\npipeline: tick\ncron_expression: '* * * * *'\nstatus: enabled\n", true)
	clk.add(5 * time.Minute)
	if err := c.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if n := runs()["schedule paused"]; n != 0 {
		t.Fatalf("the schedule enabled again ran %d times at once", n)
	}
	clk.add(time.Minute)
	if err := c.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if n := runs()["schedule paused"]; n != 1 {
		t.Fatalf("the schedule enabled again ran %d times in its first minute", n)
	}
}

// TestBackoff: an instance that keeps failing as soon as it starts is
// re-created with a growing wait, not at every end.
func TestBackoff(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	tc := connect(t, f)
	tc.addPipeline(t, "broken", "@dm:recall name = 'no-such-dataset'\n")
	tc.add(t, artifact.Deployment, "id: crashy\nname: Crashy\nservice_pipelines:\n  - {name: broken, label: main}\n", false)
	time.Sleep(8 * time.Second)
	all, err := tc.recs.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, j := range all {
		if j.Owner != nil && j.Owner.Deployment == "crashy" {
			n++
		}
	}
	// Without a back-off: a start at each end (kicked at once), dozens
	// in 8 s. With it: at 0, at once, then after 1, 2 and 4 periods.
	if n < 3 || n > 6 {
		t.Fatalf("%d jobs started in 8s, want 3 to 6 (back-off of 1, 2, 4 s)", n)
	}
	if !hasLine(tc.activity(t), "Job ", "of deployment Crashy (id crashy), service main, failed") {
		t.Errorf("no activity entry for the failures:\n%s", strings.Join(tc.activity(t), "\n"))
	}
}

// TestTenantsApart: a deployment of tenant a runs on a's workers only;
// tenant b sees none of its deployments, jobs or activity, and b's
// controller starts nothing for it.
func TestTenantsApart(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	a, b := connectTo(t, f, "a"), connectTo(t, f, "b")
	ctx := context.Background()
	a.addService(t)
	b.addService(t)
	a.add(t, artifact.Deployment, fmt.Sprintf(bp, 2), false)
	waitFor(t, 10*time.Second, "a's two instances", func() (bool, string) {
		n := len(a.owned(t, "web", "readers"))
		return n == 2, fmt.Sprintf("%d jobs", n)
	})
	aWorkers := f.PodsOf("a", api.Worker)
	for _, j := range a.owned(t, "web", "readers") {
		if j.PodID != aWorkers[0] {
			t.Errorf("a's job %s runs on %s, not a's worker %s", j.JobID, j.PodID, aWorkers[0])
		}
	}
	time.Sleep(2 * time.Second) // two of b's controller's periods
	if deps, err := b.repo.List(ctx, artifact.Deployment); err != nil || len(deps) != 0 {
		t.Errorf("tenant b lists deployments %v (%v)", deps, err)
	}
	all, err := b.recs.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 0 {
		t.Errorf("tenant b has %d jobs", len(all))
	}
	if acts := b.activity(t); len(acts) != 0 {
		t.Errorf("tenant b's activity feed: %v", acts)
	}
}

// TestServerRestart: after the NATS server restarts (same port and
// store), the controller goes on: the deployment runs its instances again
// and a change made afterwards is acted on.
func TestServerRestart(t *testing.T) {
	// Down for a moment, and for longer than the scheduler's lease: the
	// pods reconnect at different times, the registry (in memory) is
	// lost, a request in flight is lost with the server.
	for _, down := range []time.Duration{100 * time.Millisecond, 2500 * time.Millisecond} {
		t.Run(down.String(), func(t *testing.T) { serverRestart(t, down) })
	}
}

func serverRestart(t *testing.T, down time.Duration) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	tc := connect(t, f)
	tc.addService(t)
	tc.add(t, artifact.Deployment, fmt.Sprintf(bp, 1), false)
	count := func(want int) func() (bool, string) {
		return func() (bool, string) {
			n := len(tc.owned(t, "web", "readers"))
			return n == want, fmt.Sprintf("%d jobs", n)
		}
	}
	waitFor(t, 10*time.Second, "one instance", count(1))
	first := tc.owned(t, "web", "readers")[0].JobID
	f.RestartServer(t, down)
	waitFor(t, 30*time.Second, "one instance after the restart", count(1))
	tc.add(t, artifact.Deployment, fmt.Sprintf(bp, 2), true)
	waitFor(t, 20*time.Second, "two instances after the restart", count(2))
	// The instance that ran rode the restart out (its worker was only
	// reconnecting), and the feed shows no problem that was none.
	kept := false
	for _, j := range tc.owned(t, "web", "readers") {
		kept = kept || j.JobID == first
	}
	if !kept {
		t.Errorf("job %s did not outlive the restart; the feed says:\n%s", first, strings.Join(tc.activity(t), "\n"))
	}
	for _, l := range tc.activity(t) {
		if !strings.HasPrefix(l, api.SeverityInfo+" ") {
			t.Errorf("the feed reports %q after a server restart", l)
		}
	}
}
