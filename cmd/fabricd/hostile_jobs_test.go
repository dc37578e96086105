package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// procMemMB reads a process's resident memory (VmRSS) and its peak
// (VmHWM) from /proc, in MB.
func procMemMB(t *testing.T, pid int) (rss, peak float64) {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		if k == "VmRSS" {
			rss = kb / 1024
		} else {
			peak = kb / 1024
		}
	}
	return rss, peak
}

// TestHostileJobMemory: a job that gathers rows without end
// (`@dm:empty --> @c:count-loop end = 99999999999999 --> @dm:addrow x = 1`)
// on a worker process of its own fails at its default memory limit
// (2,048 MB) with that reason, instead of growing the worker to 5.7 GB and
// staying Running; the worker's resident memory returns below 300 MB
// within 10 s, and the worker takes the next job.
func TestHostileJobMemory(t *testing.T) {
	tn, err := bus.NewTenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	url := startNATS(t, tn)
	bin := fabricdBinary(t)
	startHost(t, bin, url, tn, "control", "api-server,scheduler")
	w := startHost(t, bin, url, tn, "w1", "worker")
	home := t.TempDir()
	t.Setenv("FABRIC_HOME", home)
	cfg := &bus.Config{Tenant: tn.Name, NATS: bus.NATSConfig{URLs: []string{url}, User: tn.User, Password: tn.Password}}
	path := filepath.Join(home, "acme.json")
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FABRIC_NETWORK_CONFIG", path)
	deadline := time.Now().Add(20 * time.Second)
	for len(clientPods(t)) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the pods did not start:\n%s", w.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	p := filepath.Join(t.TempDir(), "grow.pipeline")
	if err := os.WriteFile(p, []byte("@dm:empty --> @c:count-loop end = 99999999999999 --> @dm:addrow x = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var resp api.StartResponse
	if err := json.Unmarshal([]byte(clientRun(t, "run", "--file", p)), &resp); err != nil || resp.Status != "started" {
		t.Fatalf("run: %v %+v", err, resp)
	}
	job := func() api.Job {
		var js []api.Job
		if err := json.Unmarshal([]byte(clientRun(t, "jobs", "--all", "--json")), &js); err != nil {
			t.Fatal(err)
		}
		for _, j := range js {
			if j.JobID == resp.JobID {
				return j
			}
		}
		return api.Job{}
	}
	pid := w.cmd.Process.Pid
	start := time.Now()
	var j api.Job
	for j = job(); j.Status != api.JobFailed && j.Status != api.JobCompleted; j = job() {
		if time.Since(start) > 90*time.Second {
			rss, _ := procMemMB(t, pid)
			t.Fatalf("the job is still %s after %s, the worker at %.0f MB", j.Status, time.Since(start), rss)
		}
		time.Sleep(200 * time.Millisecond)
	}
	ended := time.Now()
	if j.Status != api.JobFailed || !strings.Contains(j.Reason, "more than its memory limit of 2048 MB") {
		t.Fatalf("the job ended %s: %q", j.Status, j.Reason)
	}
	_, peak := procMemMB(t, pid)
	t.Logf("failed after %s with %q; the worker peaked at %.0f MB", ended.Sub(start).Round(time.Millisecond), j.Reason, peak)
	var rss float64
	for rss, _ = procMemMB(t, pid); rss >= 300; rss, _ = procMemMB(t, pid) {
		if time.Since(ended) > 10*time.Second {
			t.Fatalf("the worker holds %.0f MB 10 s after the job failed", rss)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the worker is at %.0f MB %s after the job failed", rss, time.Since(ended).Round(time.Millisecond))
	// The worker takes the next job.
	ok := filepath.Join(t.TempDir(), "ok.pipeline")
	if err := os.WriteFile(ok, []byte("@dm:empty --> @dm:addrow x = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := clientRun(t, "run-get-output", "--file", ok, "--format", "csv", "--timeout", "20"); out != "x\n1\n" {
		t.Fatalf("the next job: %q", out)
	}
}
