package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/pods/runner"
)

const hostsPipeline = `## two hosts, the hot one kept
@dm:empty
  --> @dm:addrow host = 'web-1' & cpu = 93.5
  --> @dm:addrow host = 'web-2' & cpu = 12
  --> *dm:filter cpu > 50 get host, cpu
`

// longPipeline runs until evicted (a timed loop of ten minutes).
const longPipeline = `@c:timed-loop interval = 1 & duration = 600
  --> @dm:empty
`

// startJob runs a pipeline file and returns the job id of the start
// response.
func startJob(t *testing.T, file string, extra ...string) string {
	t.Helper()
	out, errOut, code := run(t, "", append([]string{"run", "--file", file}, extra...)...)
	var resp api.StartResponse
	if code != 0 || json.Unmarshal([]byte(out), &resp) != nil || resp.Status != "started" || len(resp.JobID) != 32 {
		t.Fatalf("run: %d %q %q", code, out, errOut)
	}
	if resp.StatusSubject == "" || resp.Now == "" || resp.Results == nil {
		t.Fatalf("start response lacks fields: %s", out)
	}
	return resp.JobID
}

// jobStatus waits until a job's status is one of want and returns it.
func jobStatus(t *testing.T, id string, want ...string) api.Job {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, errOut, code := run(t, "", "jobs", "--all", "--json")
		if code != 0 {
			t.Fatalf("jobs: %q", errOut)
		}
		var js []api.Job
		if err := json.Unmarshal([]byte(out), &js); err != nil {
			t.Fatalf("jobs --json: %v\n%s", err, out)
		}
		for _, j := range js {
			if j.JobID != id {
				continue
			}
			for _, w := range want {
				if j.Status == w {
					return j
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s is %s (%s), want %v", id, j.Status, j.Reason, want)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestRunJobsOutput(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	dir := t.TempDir()
	file := write(t, dir, "hosts.pipeline", hostsPipeline)
	if _, errOut, code := run(t, "", "verify-pipeline", "--file", file); code != 0 || !strings.Contains(errOut, "pipeline OK: 4 steps") {
		t.Fatalf("verify: %d %q", code, errOut)
	}
	id := startJob(t, file)
	j := jobStatus(t, id, api.JobCompleted)
	if j.Pipeline != "hosts" || j.PodID == "" || j.PID == 0 || j.Host == "" || j.OutputRows != 1 {
		t.Fatalf("job record: %+v", j)
	}
	out, _, _ := run(t, "", "jobs", "--all")
	for _, col := range []string{"Host", "Pod ID", "Job ID", "PID", "Created", "Age", "Pipeline", "Status", "Reason"} {
		if !strings.Contains(out, col) {
			t.Fatalf("jobs table lacks %s:\n%s", col, out)
		}
	}
	if !strings.Contains(out, id) || !strings.Contains(out, "Completed") {
		t.Fatalf("jobs --all:\n%s", out)
	}
	if out, _, _ := run(t, "", "jobs"); strings.Contains(out, id) {
		t.Fatalf("a completed job is listed as active:\n%s", out)
	}
	out, errOut, code := run(t, "", "output", "--jobid", id[:6], "--format", "csv")
	if code != 0 || out != "host,cpu\nweb-1,93.5\n" {
		t.Fatalf("output: %d %q %q", code, out, errOut)
	}
	pq := filepath.Join(dir, "out.parquet")
	if _, errOut, code := run(t, "", "output", "--jobid", id, "--tofile", pq); code != 0 {
		t.Fatal(errOut)
	}
	if st, err := os.Stat(pq); err != nil || st.Size() == 0 {
		t.Fatalf("output --tofile: %v", err)
	}
	// run-get-output waits, printing progress on stderr.
	out, errOut, code = run(t, "", "run-get-output", "--file", file, "--format", "json")
	if code != 0 || !strings.Contains(errOut, "Completed") || !strings.Contains(out, `"host": "web-1"`) {
		t.Fatalf("run-get-output: %d %q %q", code, out, errOut)
	}
	// A stored pipeline runs by name, at its latest version.
	if _, errOut, code := run(t, "", "pipeline", "add", "--file", file); code != 0 {
		t.Fatalf("pipeline add: %q", errOut)
	}
	out, errOut, code = run(t, "", "run", "--name", "hosts")
	var resp api.StartResponse
	if code != 0 || json.Unmarshal([]byte(out), &resp) != nil {
		t.Fatalf("run --name: %d %q", code, errOut)
	}
	if j := jobStatus(t, resp.JobID, api.JobCompleted); j.Pipeline != "hosts" || !strings.HasSuffix(j.Version, "_1") {
		t.Fatalf("job of a stored pipeline: %+v", j)
	}
	if _, errOut, code := run(t, "", "purge-outputs", "--yes"); code != 0 || !strings.Contains(errOut, "purged 3 outputs") {
		t.Fatalf("purge-outputs: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "output", "--jobid", id); code != 1 || !strings.Contains(errOut, "was purged") {
		t.Fatalf("output after purge: %d %q", code, errOut)
	}
}

func TestEvictLongJob(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	dir := t.TempDir()
	long := write(t, dir, "long.pipeline", longPipeline)
	id := startJob(t, long)
	jobStatus(t, id, api.JobRunning)
	if _, errOut, code := run(t, "", "evict", "--jobid", id[:5], "--yes"); code != 0 || !strings.Contains(errOut, "Evicted") {
		t.Fatalf("evict: %d %q", code, errOut)
	}
	j := jobStatus(t, id, api.JobEvicted)
	if !strings.Contains(j.Reason, "evicted") {
		t.Fatalf("evicted job: %+v", j)
	}
	if _, errOut, code := run(t, "", "evict", "--jobid", id, "--yes"); code != 1 || !strings.Contains(errOut, "is Evicted, not running") {
		t.Fatalf("evict again: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "output", "--jobid", id); code != 1 || !strings.Contains(errOut, "was evicted") {
		t.Fatalf("output of an evicted job: %d %q", code, errOut)
	}
	// An id prefix that matches several jobs is refused, naming them.
	var ids []string
	for len(ids) < 20 {
		ids = append(ids, startJob(t, long))
	}
	prefix, matches := ambiguousPrefix(append(ids, id))
	_, errOut, code := run(t, "", "evict", "--jobid", prefix, "--yes")
	if code != 1 || !strings.Contains(errOut, "matches") || !strings.Contains(errOut, matches[0]) || !strings.Contains(errOut, matches[1]) {
		t.Fatalf("ambiguous id %q: %d %q", prefix, code, errOut)
	}
	if _, errOut, code := run(t, "", "evict", "--jobid", "zz", "--yes"); code != 1 || !strings.Contains(errOut, `no job id starts with "zz"`) {
		t.Fatalf("unknown id: %d %q", code, errOut)
	}
}

// ambiguousPrefix returns the first character shared by two ids, and them.
func ambiguousPrefix(ids []string) (string, []string) {
	seen := map[byte]string{}
	for _, id := range ids {
		if other, ok := seen[id[0]]; ok {
			return id[:1], []string{other, id}
		}
		seen[id[0]] = id
	}
	panic("17 ids over 16 hex digits always share a first digit")
}

func TestWorkerPlacement(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	nyc, err := runner.Start(runner.Options{Config: f.Configs["a"], Pods: []string{api.Worker}, Site: "nyc", CapacityFilter: fabrictest.TestCapacityFilter})
	if err != nil {
		t.Fatal(err)
	}
	defer nyc.Stop()
	nycWorker := nyc.Pods()[0].PodID
	dir := t.TempDir()
	file := write(t, dir, "hosts.pipeline", hostsPipeline)
	waitWorkers(t, 2)
	for _, args := range [][]string{
		{"--site", "nyc"},
		{"--site", "ny."},
		{"--lfilter", "site_name is 'nyc'"},
		{"--lfilter", "pod_id = '" + nycWorker + "'", "--rfilter", "cpu_count >= 1"},
	} {
		id := startJob(t, file, args...)
		if j := jobStatus(t, id, api.JobCompleted); j.PodID != nycWorker || j.Site != "nyc" {
			t.Fatalf("%v: ran on %s (%s), want %s", args, j.PodID, j.Site, nycWorker)
		}
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--site", "paris"}, "no worker matches: of 2 workers, 2 not at site paris"},
		{[]string{"--rfilter", "cpu_count > 100000"}, "2 resources do not match --rfilter"},
		{[]string{"--lfilter", "tenant_name is"}, "--lfilter: col "},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, "", append([]string{"run", "--file", file}, tt.args...)...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: %d %q, want %q", tt.args, code, errOut, tt.want)
		}
	}
}

// waitWorkers waits until n workers are listed.
func waitWorkers(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out, _, _ := run(t, "", "pods", "--json", "--type", api.Worker)
		var pods []api.PodInfo
		if json.Unmarshal([]byte(out), &pods) == nil && len(pods) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("fewer than %d workers after 10s", n)
}

func TestVerifyPipelineErrors(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	dir := t.TempDir()
	unknown := write(t, dir, "unknown.pipeline", "@dm:empty\n --> @dm:nosuchbot x = 1\n")
	_, errOut, code := run(t, "", "verify-pipeline", "--file", unknown)
	if code != 1 || !strings.Contains(errOut, "step 2") || !strings.Contains(errOut, "@dm:nosuchbot") {
		t.Fatalf("unknown bot: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "run", "--file", unknown); code != 1 || !strings.Contains(errOut, "step 2") {
		t.Fatalf("run of an unsound pipeline: %d %q", code, errOut)
	}
	badParam := write(t, dir, "bad.pipeline", "@dm:empty\n --> @dm:sort columns = 'x' & order = 'up'\n")
	if _, errOut, code := run(t, "", "verify-pipeline", "--file", badParam); code != 1 || !strings.Contains(errOut, "order") {
		t.Fatalf("bad parameter: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "run", "--name", "nope"); code != 1 || !strings.Contains(errOut, `no pipeline named "nope"`) {
		t.Fatalf("unknown pipeline: %d %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "run", "--site", "x"); code != 2 {
		t.Fatalf("run without a pipeline: %d %q", code, errOut)
	}
}

// TestJobsSurviveWorkers: a failed job keeps its reason; a worker that
// stops mid-job leaves the job Failed (never Running); records and
// outputs outlive a worker restart.
func TestJobsSurviveWorkers(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker, api.Worker}})
	dir := t.TempDir()
	done := startJob(t, write(t, dir, "hosts.pipeline", hostsPipeline))
	jobStatus(t, done, api.JobCompleted)
	failing := startJob(t, write(t, dir, "failing.pipeline", "@dm:recall name = 'no-such-dataset'\n"))
	if j := jobStatus(t, failing, api.JobFailed); !strings.Contains(j.Reason, "no-such-dataset") {
		t.Fatalf("failed job reason: %+v", j)
	}
	long := write(t, dir, "long.pipeline", longPipeline)
	// A worker restarted in place fails its running job.
	id := startJob(t, long)
	j := jobStatus(t, id, api.JobRunning)
	if _, errOut, code := run(t, "", "pod-controller", "restart", "--pod-id", j.PodID); code != 0 {
		t.Fatalf("restart: %q", errOut)
	}
	if j := jobStatus(t, id, api.JobFailed); !strings.Contains(j.Reason, "worker") {
		t.Fatalf("job of a restarted worker: %+v", j)
	}
	// A worker that dies mid-job leaves it Failed.
	id = startJob(t, long)
	j = jobStatus(t, id, api.JobRunning)
	if err := f.Runners["a"].StopPod(j.PodID); err != nil {
		t.Fatal(err)
	}
	if j := jobStatus(t, id, api.JobFailed); !strings.Contains(j.Reason, "worker") {
		t.Fatalf("job of a stopped worker: %+v", j)
	}
	// A worker killed outright cannot record anything: the api-server
	// fails its jobs once it has left the registry.
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	recs, err := c.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	killed := api.Job{JobID: strings.Repeat("d", 32), PodID: "deadbeef", Pipeline: "lost", Status: api.JobRunning}
	if err := recs.Create(context.Background(), killed); err != nil {
		t.Fatal(err)
	}
	if j := jobStatus(t, killed.JobID, api.JobFailed); !strings.Contains(j.Reason, "worker deadbeef stopped") {
		t.Fatalf("job of a killed worker: %+v", j)
	}
	// The completed job's record and output are still there.
	if out, errOut, code := run(t, "", "output", "--jobid", done, "--format", "csv"); code != 0 || !strings.Contains(out, "web-1") {
		t.Fatalf("output after the restarts: %d %q %q", code, out, errOut)
	}
}

// TestJobDatasetsAndObjects: bots reach the tenant's datasets and objects
// through the worker.
func TestJobDatasetsAndObjects(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	dir := t.TempDir()
	save := write(t, dir, "save.pipeline", `@dm:empty
  --> @dm:addrow host = 'web-1' & cpu = 93.5
  --> @dm:save name = 'seen' & append = 'yes'
  --> @dm:object-add folder = 'reports' & name = 'seen.csv' & format = 'csv'
`)
	for i := 0; i < 2; i++ {
		jobStatus(t, startJob(t, save), api.JobCompleted)
	}
	if d := datasetMeta(t, "seen"); d.NumRows != 2 {
		t.Fatalf("appended dataset: %+v", d)
	}
	if out, _, _ := run(t, "", "object", "list", "--folder", "reports"); !strings.Contains(out, "seen.csv") {
		t.Fatalf("object list:\n%s", out)
	}
	recall := write(t, dir, "recall.pipeline", "@dm:recall name = 'seen'\n  --> @dm:dedup\n")
	id := startJob(t, recall)
	if j := jobStatus(t, id, api.JobCompleted); j.OutputRows != 1 {
		t.Fatalf("recall + dedup: %+v", j)
	}
}

// TestWatchTraces: every step of a job is traced on the trace subjects,
// and the command streams until its timeout.
func TestWatchTraces(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	traces := make(chan api.Trace, 100)
	go c.WatchTraces(ctx, func(tr api.Trace) { traces <- tr })
	time.Sleep(100 * time.Millisecond) // the subscription is in place
	id := startJob(t, write(t, t.TempDir(), "hosts.pipeline", hostsPipeline))
	completed := map[int]bool{}
	for len(completed) < 4 {
		select {
		case tr := <-traces:
			if tr.JobID == id && tr.Status == "completed" {
				completed[tr.Step] = true
				if tr.Pipeline != "hosts" || tr.Tag == "" {
					t.Fatalf("trace: %+v", tr)
				}
			}
		case <-ctx.Done():
			t.Fatalf("traces of steps %v only", completed)
		}
	}
	start := time.Now()
	_, errOut, code := run(t, "", "watch-traces", "--timeout", "0.3")
	if code != 0 || !strings.Contains(errOut, "Ctrl-C stops") || time.Since(start) > 5*time.Second {
		t.Fatalf("watch-traces: %d %q after %s", code, errOut, time.Since(start))
	}
}

func TestPipelineBots(t *testing.T) {
	out, _, code := run(t, "", "pipeline", "bots")
	for _, tag := range []string{"@dm:sort", "*dm:filter", "@c:timed-loop", "@files:loadfile", "@dm:grok"} {
		if code != 0 || !strings.Contains(out, tag) {
			t.Fatalf("pipeline bots lacks %s:\n%s", tag, out)
		}
	}
	if out, _, code := run(t, "", "pipeline", "bots", "--tag", "dm:sort"); code != 0 || !strings.Contains(out, "order") || !strings.Contains(out, "asc|desc") {
		t.Fatalf("pipeline bots --tag:\n%s", out)
	}
	if _, errOut, code := run(t, "", "pipeline", "bots", "--tag", "@dm:nope"); code != 1 || !strings.Contains(errOut, "no bot") {
		t.Fatalf("unknown bot: %d %q", code, errOut)
	}
}
