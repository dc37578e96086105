package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fabricops/fabric/cli"
	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/nats-io/nats.go/jetstream"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// TestMain removes the fabricd the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// fabricdBinary builds fabricd once for the tests of this run.
func fabricdBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fabricd-test-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "fabricd")
		if out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// host is a fabricd process of the test, with its log.
type host struct {
	name string
	cmd  *exec.Cmd
	log  bytes.Buffer
}

func startHost(t *testing.T, bin, url string, tn bus.Tenant, name, pods string, args ...string) *host {
	t.Helper()
	h := &host{name: name}
	h.cmd = exec.Command(bin, append([]string{"--nats", url, "--tenant", tn.Name, "--user", tn.User, "--pods", pods,
		"--controller-period", "1s", "--lease-ttl", "3s"}, args...)...)
	h.cmd.Env = append(os.Environ(), "FABRIC_PASSWORD="+tn.Password)
	h.cmd.Stdout, h.cmd.Stderr = &h.log, &h.log
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.cmd.Process.Kill(); _ = h.cmd.Wait() })
	return h
}

func (h *host) kill(t *testing.T) {
	t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
}

// clientRun runs a client command and fails the test unless it exits 0.
func clientRun(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("client %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// TestControllerSurvivesKills: a deployment of two service instances on
// a fabric of separate processes (an api-server, two workers, two
// schedulers) against a standalone nats-server. kill -9 of the worker of
// one instance: it is re-created on the other worker within the
// controller's period and a few seconds, with an activity entry. kill -9
// of the leading scheduler: the other takes over, and the instances stay
// two (never more for longer than a period, never fewer); the new leader
// re-creates an evicted instance.
func TestControllerSurvivesKills(t *testing.T) {
	tn, err := bus.NewTenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	url := startNATS(t, tn)
	bin := fabricdBinary(t)
	hosts := []*host{startHost(t, bin, url, tn, "api", "api-server")}
	for _, w := range []string{"w1", "w2"} {
		hosts = append(hosts, startHost(t, bin, url, tn, w, "worker", "--site", "dc1"))
	}
	nc := useTenant(t, tn, url, "controller-test")
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	w := waiter{t: t, hosts: &hosts}
	dump, waitFor := w.dump, w.wait
	waitFor(20*time.Second, "the api-server and the workers", func() (bool, string) {
		n := len(clientPods(t))
		return n == 3, fmt.Sprintf("%d pods", n)
	})
	// The first scheduler leads; the second waits.
	s1 := startHost(t, bin, url, tn, "s1", "scheduler")
	hosts = append(hosts, s1)
	leader := func() string {
		kv, err := js.KeyValue(ctx, api.LeasesBucket)
		if err != nil {
			return ""
		}
		e, err := kv.Get(ctx, api.Scheduler)
		if err != nil {
			return ""
		}
		return string(e.Value())
	}
	waitFor(20*time.Second, "the first scheduler to lead", func() (bool, string) { return leader() != "", "no lease" })
	first := leader()
	hosts = append(hosts, startHost(t, bin, url, tn, "s2", "scheduler"))

	dir := t.TempDir()
	if _, err := streams.Add(ctx, js, streams.Config{Name: "events"}); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clientRun(t, "pipeline", "add", "--name", "svc", "--file", write("svc.pipeline", "@dm:read-stream name = 'events' & follow = true\n"))
	clientRun(t, "deployment", "add", "--file", write("web.yaml", "id: web\nname: Web\nservice_pipelines:\n  - {name: svc, label: readers, instances: 2, site: dc1}\n"))

	data := tenant.New(nc)
	st, err := data.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs := jobs.Open(st)
	instances := func() []api.Job {
		all, err := recs.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []api.Job
		for _, j := range all {
			if j.Owner != nil && j.Owner.Deployment == "web" && api.JobActive(j.Status) {
				out = append(out, j)
			}
		}
		return out
	}
	spread := func() (bool, string) {
		js := instances()
		pids := map[int]bool{}
		for _, j := range js {
			pids[j.PID] = true
		}
		return len(js) == 2 && len(pids) == 2, fmt.Sprintf("%d instances in %d processes", len(js), len(pids))
	}
	waitFor(15*time.Second, "two instances on the two workers", spread)

	// kill -9 of the worker of an instance.
	victim := instances()[0]
	var killed *host
	for _, h := range hosts {
		if h.cmd.Process.Pid == victim.PID {
			killed = h
		}
	}
	if killed == nil {
		t.Fatalf("no worker process has pid %d", victim.PID)
	}
	killed.kill(t)
	killedAt := time.Now()
	waitFor(8*time.Second, "the lost instance re-created on the other worker", func() (bool, string) {
		js := instances()
		for _, j := range js {
			if j.PID == victim.PID {
				return false, "an instance is still on the killed worker"
			}
		}
		return len(js) == 2, fmt.Sprintf("%d instances", len(js))
	})
	t.Logf("re-created %.1fs after the kill", time.Since(killedAt).Seconds())
	// The entry is written just after the new job's record.
	waitFor(5*time.Second, "the activity entry of the re-creation", func() (bool, string) {
		out := clientRun(t, "deployment", "activity", "--id", "web")
		return strings.Contains(out, "Re-created job "+victim.JobID) && strings.Contains(out, "restart count 1"), out
	})

	// kill -9 of the leading scheduler: the other takes over.
	var leaderHost *host
	for _, p := range clientPods(t) {
		if p.PodID == first {
			for _, h := range hosts {
				if h.cmd.Process.Pid == p.ProcID {
					leaderHost = h
				}
			}
		}
	}
	if leaderHost == nil {
		t.Fatalf("no process runs the leading scheduler %s", first)
	}
	leaderHost.kill(t)
	var over time.Time // since when more than two run
	deadline := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		n := len(instances())
		switch {
		case n < 2:
			t.Fatalf("an instance went missing after the leader died: %d running\n%s", n, dump())
		case n > 2 && over.IsZero():
			over = time.Now()
		case n > 2 && time.Since(over) > 1500*time.Millisecond:
			t.Fatalf("%d instances for longer than a period after the leader died\n%s", n, dump())
		case n == 2:
			over = time.Time{}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if l := leader(); l == "" || l == first {
		t.Fatalf("the second scheduler did not take the lease (lease: %q)\n%s", l, dump())
	}
	// The new leader acts: an evicted instance is re-created.
	evicted := instances()[0]
	clientRun(t, "evict", "--jobid", evicted.JobID, "--yes")
	waitFor(8*time.Second, "the evicted instance re-created by the new leader", func() (bool, string) {
		js := instances()
		for _, j := range js {
			if j.JobID == evicted.JobID {
				return false, "the evicted job still runs"
			}
		}
		return len(js) == 2, fmt.Sprintf("%d instances", len(js))
	})
	waitFor(5*time.Second, "the new leader's activity entry", func() (bool, string) {
		var acts []api.Activity
		_ = json.Unmarshal([]byte(clientRun(t, "deployment", "activity", "--id", "web", "--json")), &acts)
		return len(acts) > 0 && strings.Contains(acts[len(acts)-1].Message, "Re-created job "+evicted.JobID), fmt.Sprintf("%+v", acts)
	})
}
