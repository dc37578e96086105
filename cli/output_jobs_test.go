package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/nats-io/nats.go"
)

// TestOutputJobs: pipelines run on workers, their records and outputs.
// Each job the test starts is named in the transcripts (<JOB1>, ...), in
// the order started.
func TestOutputJobs(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	s := newSession(t, "verify-pipeline", "run", "run-get-output", "jobs", "output", "evict", "purge-outputs", "watch-traces")
	// run-get-output reports each status it sees: whether it sees the job
	// Initializing or Running before it ends depends on timing.
	s.normalize = func(key, stderr string) string {
		if key != "run-get-output" {
			return stderr
		}
		var kept []string
		for _, l := range strings.SplitAfter(stderr, "\n") {
			if l != "Initializing\n" && l != "Running\n" {
				kept = append(kept, l)
			}
		}
		return strings.Join(kept, "")
	}
	dir := s.vars["DIR"]
	write(t, dir, "hosts.pipeline", hostsPipeline)
	write(t, dir, "unknown.pipeline", "@dm:empty\n --> @dm:nosuchbot x = 1\n")
	write(t, dir, "bad-param.pipeline", "@dm:empty\n --> @dm:sort columns = 'x' & order = 'up'\n")
	write(t, dir, "failing.pipeline", "@dm:recall name = 'no-such-dataset'\n")
	write(t, dir, "long.pipeline", longPipeline)

	jobs := 0
	// name gives a job id found in a run's output the next name.
	name := func(id string) {
		jobs++
		n := fmt.Sprintf("JOB%d", jobs)
		s.vars[n], s.vars[n+"_6"] = id, id[:6]
		s.sc.Literal(id, "<"+n+">").Literal(id[:8], "<"+n+"[:8]>").Literal(id[:6], "<"+n+"[:6]>")
	}
	// start runs "client run" and names its job.
	start := func(line string) {
		s.runThen(0, "", s.expand(line), func(out, errOut string) {
			var resp api.StartResponse
			if err := json.Unmarshal([]byte(out), &resp); err != nil || resp.JobID == "" {
				t.Fatalf("run: %v\n%s%s", err, out, errOut)
			}
			name(resp.JobID)
		})
	}
	started := regexp.MustCompile(`started job ([0-9a-f]{32})`)
	// runGet runs "client run-get-output" and names its job.
	runGet := func(code int, line string) {
		s.runThen(code, "", s.expand(line), func(_, errOut string) {
			m := started.FindStringSubmatch(errOut)
			if m == nil {
				t.Fatalf("run-get-output started no job:\n%s", errOut)
			}
			name(m[1])
		})
	}
	wait := func(status string) { jobStatus(t, s.vars[fmt.Sprintf("JOB%d", jobs)], status) }
	// watch records a watch-traces run that sees the traces of the jobs
	// during starts: it runs in the background, and during runs once its
	// subscription is in place.
	watch := func(during func()) {
		args := []string{"watch-traces", "--timeout", "2"}
		type result struct {
			out, errOut string
			code        int
		}
		done := make(chan result, 1)
		go func() {
			var out, errOut bytes.Buffer
			code := Main(args, strings.NewReader(""), &out, &errOut)
			done <- result{out.String(), errOut.String(), code}
		}()
		waitTraceWatcher(t, f.Configs["a"])
		during()
		r := <-done
		if r.code != 0 {
			t.Errorf("watch-traces: exit %d\n%s%s", r.code, r.out, r.errOut)
		}
		s.log("watch-traces", "", args, r.out, r.errOut, r.code)
	}

	s.steps(
		step{cmd: "verify-pipeline --file $DIR/hosts.pipeline"},
		step{cmd: "verify-pipeline --file $DIR/unknown.pipeline", code: 1},
		step{cmd: "verify-pipeline --file $DIR/bad-param.pipeline", code: 1},
		step{cmd: "verify-pipeline --name nope", code: 1},
		step{cmd: "verify-pipeline --file $DIR/hosts.pipeline --site paris", code: 1},
		step{cmd: "pipeline add --file $DIR/hosts.pipeline", setup: true},
		step{cmd: "verify-pipeline --name hosts"},

		// Nothing runs yet.
		step{cmd: "watch-traces --timeout 0.2"},
		step{cmd: "jobs"},

		step{do: func() { watch(func() { start("run --file $DIR/hosts.pipeline"); wait(api.JobCompleted) }) }},
		step{do: func() { start("run --name hosts"); wait(api.JobCompleted) }},
		step{cmd: "run --file $DIR/unknown.pipeline", code: 1},
		step{cmd: "run --name nope", code: 1},
		step{cmd: "run --file $DIR/hosts.pipeline --site paris", code: 1},
		step{cmd: "run --file $DIR/hosts.pipeline --rfilter 'cpu_count > 100000'", code: 1},
		step{cmd: "run --file $DIR/hosts.pipeline --lfilter 'tenant_name is'", code: 1},
		step{cmd: "run --file $DIR/none.pipeline", code: 1},
		step{cmd: "run --file $DIR/hosts.pipeline --version 2001_01_01_1", code: 2},

		step{do: func() { runGet(0, "run-get-output --file $DIR/hosts.pipeline") }},
		step{do: func() { runGet(0, "run-get-output --name hosts --format csv") }},
		step{do: func() { runGet(0, "run-get-output --file $DIR/hosts.pipeline --tofile $DIR/out/hosts.json") }},
		step{cat: "$DIR/out/hosts.json", key: "run-get-output"},
		step{do: func() { runGet(1, "run-get-output --file $DIR/failing.pipeline --format json") }},
		step{cmd: "run-get-output --file $DIR/unknown.pipeline", code: 1},

		step{cmd: "output --jobid $JOB1"},
		step{cmd: "output --jobid $JOB1_6 --format csv"},
		step{cmd: "output --jobid $JOB2 --format json"},
		step{cmd: "output --jobid $JOB2 --viz"},
		step{cmd: "output --jobid $JOB2 --format jsonl --viz", code: 2},
		step{cmd: "viz --jobid $JOB2", key: "output"},
		step{cmd: "output --jobid $JOB1 --tofile $DIR/out/job1.csv"},
		step{cat: "$DIR/out/job1.csv", key: "output"},
		step{cmd: "output --jobid $JOB6", code: 1},
		step{cmd: "output --jobid zz", code: 1},
		step{cmd: "output --jobid $JOB1 --format parquet", code: 2},

		// A job that runs until evicted.
		step{do: func() { start("run --file $DIR/long.pipeline"); wait(api.JobRunning) }},
		step{cmd: "jobs"},
		step{cmd: "output --jobid $JOB7", code: 1},
		step{cmd: "evict --jobid $JOB7", stdin: "n\n"},
		step{cmd: "evict --jobid $JOB7_6 --yes"},
		step{do: func() { wait(api.JobEvicted) }},
		step{cmd: "evict --jobid $JOB7 --yes", code: 1},
		step{cmd: "evict --jobid $JOB1 --yes", code: 1},
		step{cmd: "evict --jobid zz --yes", code: 1},
		step{cmd: "output --jobid $JOB7", code: 1},

		step{cmd: "jobs --all"},
		step{cmd: "jobs --all --pipeline_name hosts --json"},
		step{cmd: "jobs --pipeline_name long"},

		step{cmd: "purge-outputs", stdin: "n\n"},
		step{cmd: "purge-outputs --yes"},
		step{cmd: "purge-outputs --yes"},
		step{cmd: "output --jobid $JOB1", code: 1},
	)
	s.unreachable("jobs", "purge-outputs --yes", "watch-traces --timeout 0.2")
}

// waitTraceWatcher waits until something subscribes to the trace subjects
// (a watch-traces): a request there times out instead of finding no
// responders. Nothing but watchers subscribes to traces; the probe is no
// trace (not JSON), which watchers skip.
func waitTraceWatcher(t *testing.T, cfg *bus.Config) {
	t.Helper()
	nc, err := bus.Connect(cfg, "probe")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := nc.Request(api.SubjectTraces+".probe.probe", []byte("probe"), 50*time.Millisecond)
		if err == nats.ErrTimeout {
			return
		}
		if err != nats.ErrNoResponders {
			t.Fatalf("probing the trace subjects: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatal("no watch-traces subscribed within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
