package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/store"
)

// TestRestartInPlace: a pod asked to restart comes back with the same
// id, its category from its registration and its restart counted; a
// runner stopped leaves no pod running. Run with -race: the restart
// callback runs in a goroutine of the pod while the runner reads its
// slots.
func TestRestartInPlace(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker, api.Worker}})
	r := f.Runners["a"]
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, c := range []struct {
		podType, category string
	}{
		{api.Worker, api.CategoryApp},
		{api.APIServer, api.CategoryInfra},
	} {
		id := f.PodsOf("a", c.podType)[0]
		if _, err := nc.Request(api.PodSubject(id, api.EndpointRestart), nil, 5*time.Second); err != nil {
			t.Fatalf("restart of %s: %v", id, err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			var st api.ControllerStatus
			if m, err := nc.Request(api.PodSubject(id, api.EndpointStatus), nil, time.Second); err == nil && json.Unmarshal(m.Data, &st) == nil && st.Restarts == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s pod %s: no restart seen", c.podType, id)
			}
			time.Sleep(20 * time.Millisecond)
		}
		var info api.PodInfo
		m, err := nc.Request(api.PodSubject(id, api.EndpointInfo), nil, 5*time.Second)
		if err != nil || json.Unmarshal(m.Data, &info) != nil {
			t.Fatalf("info of %s: %v", id, err)
		}
		if info.PodCategory != c.category {
			t.Errorf("%s pod: category %q, want %q", c.podType, info.PodCategory, c.category)
		}
	}
	r.Stop()
	if pods := r.Pods(); len(pods) != 0 {
		t.Errorf("after Stop, running: %v", pods)
	}
}

// TestStopWithAJobRunning: a runner stopped while a worker's job runs
// stops the job, waits for it to record how it ended, and leaves no
// record Running. Run with -race: the worker counted a job it started
// (wg.Add) without ordering it before the stop's wg.Wait.
func TestStopWithAJobRunning(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	id := f.PodsOf("a", api.Worker)[0]
	req, _ := json.Marshal(api.RunRequest{Pipeline: "p", Steps: []api.PipelineStep{
		{Tag: "@c:timed-loop", Query: "interval = 0.05 & duration = 30"}, {Tag: "@dm:empty"}}})
	m, err := nc.Request(api.PodSubject(id, api.EndpointRun), req, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var resp api.StartResponse
	if err := json.Unmarshal(m.Data, &resp); err != nil || resp.Status != "started" {
		t.Fatalf("start: %s", m.Data)
	}
	time.Sleep(300 * time.Millisecond)
	f.Runners["a"].Stop()
	st, err := store.Open(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	j, err := jobs.Open(st).Get(context.Background(), resp.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != api.JobFailed || !strings.Contains(j.Reason, "the worker stopped") {
		t.Errorf("job %s after the stop: %s (%s), want Failed: the worker stopped", j.JobID, j.Status, j.Reason)
	}
}
