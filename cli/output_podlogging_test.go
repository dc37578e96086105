package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/nats-io/nats.go"
)

// logSpy gathers the pods' log lines (what watch logs shows) of the
// fabric of cfg.
type logSpy struct {
	t     *testing.T
	lines chan api.LogLine
}

func newLogSpy(t *testing.T, cfg *bus.Config) *logSpy {
	nc, err := bus.Connect(cfg, "log-spy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	s := &logSpy{t: t, lines: make(chan api.LogLine, 1024)}
	if _, err := nc.Subscribe(api.SubjectLogs+".>", func(m *nats.Msg) {
		var l api.LogLine
		if json.Unmarshal(m.Data, &l) == nil {
			select {
			case s.lines <- l:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return s
}

// wait returns the first line that match accepts within timeout, or
// fails naming what it waited for.
func (s *logSpy) wait(what string, timeout time.Duration, match func(api.LogLine) bool) api.LogLine {
	s.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l := <-s.lines:
			if match(l) {
				return l
			}
		case <-deadline:
			s.t.Fatalf("timed out after %s waiting for %s on %s.>", timeout, what, api.SubjectLogs)
			return api.LogLine{}
		}
	}
}

// drain forgets the lines received so far.
func (s *logSpy) drain() {
	for {
		select {
		case <-s.lines:
		default:
			return
		}
	}
}

// TestOutputPodLogging: the logging of running pods, read and changed
// at once: set-pod-log-level debug makes the workers' debug lines appear
// on the log subject (watch logs) without a restart; a configuration
// set from a file reads back as set; a handler's level and target
// change; a bad level, logger, handler or target changes nothing; a
// pod that does not answer makes the command fail (N < M).
func TestOutputPodLogging(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	s := newSession(t, "pod-logging-get", "pod-logging-set", "set-pod-log-level", "pod-logging-handler-set", "worker-obj-info")
	workers := f.PodsOf("a", api.Worker)
	if len(workers) != 2 {
		t.Fatalf("workers: %v", workers)
	}
	s.vars["W1"], s.vars["W2"] = workers[0], workers[1]
	s.sc.Literal(f.Server.URL(), "<NATS>")
	s.sc.Column("Tenant Storage", "<USED> of <LIMIT>")
	dir := s.vars["DIR"]
	write(t, dir, "empty.pipeline", "@dm:empty\n")
	write(t, dir, "logging.yaml", "# jobs in detail, the rest quieter\nloggers:\n  jobs: debug\n  libraries: Warning\nhandlers:\n  file: {level: info, target: stderr}\n")
	write(t, dir, "nologger.yaml", "loggers:\n  jobs: debug\n  nosuch: debug\n")
	write(t, dir, "badlevel.yaml", "loggers:\n  jobs: loud\n")
	write(t, dir, "notyaml.yaml", "loggers: [jobs: \n")
	spy := newLogSpy(t, f.Configs["a"])
	isDebug := func(l api.LogLine) bool {
		return l.PodType == api.Worker && l.Level == api.LevelDebug && l.Logger == api.LoggerJobs
	}
	noDebug := func(why string) step {
		return step{do: func() {
			spy.drain()
			jobStatus(t, startJob(t, dir+"/empty.pipeline"), api.JobCompleted)
			time.Sleep(200 * time.Millisecond)
			for {
				select {
				case l := <-spy.lines:
					if isDebug(l) {
						t.Fatalf("a debug line %s: %+v", why, l)
					}
				default:
					return
				}
			}
		}}
	}

	s.steps(
		step{cmd: "pod-logging get --pod-type worker"},
		step{cmd: "pod-logging get", code: 2},
		step{cmd: "pod-logging get --pod-type worker --pod-id $W1", code: 2},
		step{cmd: "pod-logging get --pod-id 0badc0de", code: 1},

		// At info, a job writes no debug line; at debug, at once, it does.
		noDebug("at info"),
		step{cmd: "set-pod-log-level --pod-type worker DEBUG"},
		step{do: func() {
			spy.drain()
			id := startJob(t, dir+"/empty.pipeline")
			l := spy.wait("a worker's debug line of job "+id, 10*time.Second, func(l api.LogLine) bool { return isDebug(l) && strings.Contains(l.Message, id) })
			if !strings.Contains(l.Message, "started") && !strings.Contains(l.Message, "finished") {
				t.Errorf("debug line: %+v", l)
			}
		}},
		step{cmd: "set-pod-log-level --pod-type worker loud", code: 1},
		step{cmd: "set-pod-log-level --pod-id $W1 info --json"},
		step{cmd: "set-pod-log-level --pod-type worker info", setup: true},

		// A configuration from a file reads back as set; a bad one
		// changes nothing on any pod.
		step{cmd: "pod-logging set --pod-type worker --file $DIR/logging.yaml"},
		step{cmd: "pod-logging get --pod-id $W1 --json"},
		step{cmd: "pod-logging set --pod-type worker --file $DIR/nologger.yaml", code: 1},
		step{cmd: "pod-logging set --pod-type worker --file $DIR/badlevel.yaml", code: 1},
		step{cmd: "pod-logging set --pod-type worker --file $DIR/notyaml.yaml", code: 1},
		step{cmd: "pod-logging set --pod-type worker --file $DIR/missing.yaml", code: 1},
		step{cmd: "pod-logging set --pod-type scheduler --logger controller --level warning"},
		step{cmd: "pod-logging set --pod-type worker --logger jobs", code: 2},

		// The nats handler at warning: the jobs logger still at debug
		// passes its lines, the handler drops them.
		step{cmd: "pod-logging handler-set --pod-type worker --handler nats --level warning"},
		noDebug("with the nats handler at warning"),
		step{cmd: "pod-logging handler-set --pod-type worker --handler nats --target fabric.logs.mine --level debug"},
		step{cmd: "pod-logging handler-set --pod-type worker --handler nats --target other.subject", code: 1},
		step{cmd: "pod-logging handler-set --pod-type worker --handler file --level verbose", code: 1},
		step{cmd: "pod-logging handler-set --pod-type worker --handler file", code: 2},
		step{cmd: "pod-logging get --pod-id $W2"},

		step{cmd: "worker-obj-info"},
		// The JSON's figures of the tenant's storage move with every
		// write: checked here, not in the transcript.
		step{do: func() {
			out, errOut, code := run(t, "", "worker-obj-info", "--pod-id", workers[0], "--json")
			var pods []api.ObjInfo
			if code != 0 || json.Unmarshal([]byte(out), &pods) != nil || len(pods) != 1 {
				t.Fatalf("worker-obj-info --json: exit %d\n%s%s", code, out, errOut)
			}
			p := pods[0]
			if p.PodID != workers[0] || p.Server != f.Server.URL() || p.Bucket != api.ObjectsBucket || len(p.Buckets) == 0 ||
				p.Buckets[0].Objects != 3 || p.Buckets[0].Bytes == 0 || p.StorageUsedBytes == 0 || p.StorageLimitBytes != 10<<30 {
				t.Errorf("worker-obj-info --json: %+v", p)
			}
		}},

		// A worker that does not answer: N < M, exit 1.
		step{do: func() {
			if err := f.Runners["a"].StopPod(workers[1]); err != nil {
				t.Fatal(err)
			}
		}},
		step{cmd: "pod-logging get --pod-id $W1 $W2 --wait 2", code: 1},
		step{cmd: "set-pod-log-level --pod-id $W2 info", code: 1},
		step{cmd: "worker-obj-info --pod-id $W1 $W2", code: 1},
	)
}

// TestPodOpsWithoutAPIServer: with no api-server to ask the pods, the
// client asks them itself.
func TestPodOpsWithoutAPIServer(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.Worker}})
	for _, args := range [][]string{
		{"set-pod-log-level", "--pod-type", "worker", "debug"},
		{"pod-logging-get", "--pod-type", "worker"},
		{"worker-obj-info"},
	} {
		out, errOut, code := run(t, "", args...)
		if code != 0 || !strings.Contains(errOut, "Received responses from 1/1 worker pod(s)") {
			t.Errorf("client %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
}
