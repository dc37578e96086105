package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/cli"
	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/release"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// newBuild writes a build directory named name under dir, as make dist
// does, whose fabricd is this package built with Version version.
func newBuild(t *testing.T, dir, name, version string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(out, "fabricd")
	if b, err := exec.Command("go", "build", "-ldflags", "-X main.Version="+version, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	for _, name := range []string{"client", "client-data"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte("#!/bin/sh\necho "+name+" "+version+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := release.Seal(out, version); err != nil {
		t.Fatal(err)
	}
	return out
}

// microVersions asks the tenant's NATS micro services for their info, as
// nats micro ls does, and returns each pod's announced version.
func microVersions(t *testing.T, nc *nats.Conn) map[string]string {
	t.Helper()
	inbox := nats.NewInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.PublishRequest("$SRV.INFO", inbox, nil); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for {
		m, err := sub.NextMsg(500 * time.Millisecond)
		if err != nil {
			return out
		}
		var info struct {
			Version  string            `json:"version"`
			Metadata map[string]string `json:"metadata"`
		}
		if json.Unmarshal(m.Data, &info) == nil {
			out[info.Metadata["pod_id"]] = info.Version
		}
	}
}

// TestRollingUpgrade: a fabric of separate processes (an api-server, two
// schedulers, three workers) against a standalone nats-server, running
// a stream of jobs and a deployment of two service instances, is
// upgraded one process at a time by client fabric upgrade --rolling: no
// job that started is lost or left Running, the instances stay two (at
// most one controller period fewer), every pod keeps its id and reports
// the new build, to pods and to NATS micro discovery.
func TestRollingUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fabricd twice and runs six processes")
	}
	tn, err := bus.NewTenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	url := startNATS(t, tn)
	bin := fabricdBinary(t)
	builds := t.TempDir()
	const newVersion = "9.9.9-next"
	build := newBuild(t, builds, "next", newVersion)
	up := []string{"--upgrades-dir", builds}
	hosts := []*host{startHost(t, bin, url, tn, "api", "api-server", up...)}
	for _, name := range []string{"s1", "s2"} {
		hosts = append(hosts, startHost(t, bin, url, tn, name, "scheduler", up...))
	}
	for _, name := range []string{"w1", "w2", "w3"} {
		hosts = append(hosts, startHost(t, bin, url, tn, name, "worker", append([]string{"--site", "dc1"}, up...)...))
	}
	nc := useTenant(t, tn, url, "upgrade-test")
	c := client.New(nc)
	ctx := context.Background()
	w := waiter{t: t, hosts: &hosts}
	dump, waitFor := w.dump, w.wait
	waitFor(30*time.Second, "six pods and a leading scheduler", func() (bool, string) {
		pods, err := c.Pods(ctx)
		_, lerr := c.SchedulerLeader(ctx)
		return err == nil && len(pods) == 6 && lerr == nil, fmt.Sprintf("%d pods, %v %v", len(pods), err, lerr)
	})
	before := map[string]string{}
	pods, _ := c.Pods(ctx)
	for _, p := range pods {
		before[p.PodID] = p.PodType
		if p.BuildTag == newVersion {
			t.Fatalf("pod %s runs the new build already", p.PodID)
		}
	}

	// A deployment of two service instances.
	js, _ := jetstream.New(nc)
	if _, err := streams.Add(ctx, js, streams.Config{Name: "events"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	clientRun(t, "pipeline", "add", "--name", "svc", "--file", write("svc.pipeline", "@dm:read-stream name = 'events' & follow = true\n"))
	clientRun(t, "deployment", "add", "--file", write("web.yaml", "id: web\nname: Web\nservice_pipelines:\n  - {name: svc, label: readers, instances: 2, site: dc1}\n"))
	st, err := tenant.New(nc).Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs := jobs.Open(st)
	instances := func() int {
		all, err := recs.List(ctx)
		if err != nil {
			return -1
		}
		n := 0
		for _, j := range all {
			if j.Owner != nil && j.Owner.Deployment == "web" && api.JobActive(j.Status) {
				n++
			}
		}
		return n
	}
	waitFor(20*time.Second, "two instances", func() (bool, string) { n := instances(); return n == 2, fmt.Sprintf("%d", n) })

	// The instances, watched while the upgrade runs: never fewer than
	// two for longer than a controller period (1s) and the start of one.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var longestBelow time.Duration
	wg.Add(1)
	go func() {
		defer wg.Done()
		var since time.Time
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			n := instances()
			mu.Lock()
			switch {
			case n >= 2 || n < 0:
				since = time.Time{}
			case since.IsZero():
				since = time.Now()
			default:
				longestBelow = max(longestBelow, time.Since(since))
			}
			mu.Unlock()
		}
	}()
	// A stream of jobs of about a second each.
	var started []string
	var refused []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		steps := []api.PipelineStep{{Tag: "@c:timed-loop", Query: "interval = 0.3 & count = 3"}, {Tag: "@dm:empty"}}
		for {
			select {
			case <-stop:
				return
			case <-time.After(150 * time.Millisecond):
			}
			resp, err := c.Run(ctx, api.RunRequest{Pipeline: "tick", Steps: steps}, client.Placement{Site: "dc1"})
			mu.Lock()
			if err != nil {
				refused = append(refused, err.Error())
			} else {
				started = append(started, resp.JobID)
			}
			mu.Unlock()
		}
	}()
	time.Sleep(time.Second)

	// A build that is not in the hosts' upgrades directory: the first
	// process refuses it, and nothing changes.
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	entries, _ := os.ReadDir(build)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(build, e.Name()))
		os.WriteFile(filepath.Join(elsewhere, e.Name()), data, 0o755)
	}
	var errOut bytes.Buffer
	if code := cli.Main([]string{"fabric", "upgrade", "--to", elsewhere, "--rolling", "--yes"}, strings.NewReader(""), &bytes.Buffer{}, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "has no build elsewhere in its upgrades directory "+builds+": copy the build there first") {
		t.Fatalf("a build the hosts do not have: exit %d: %s", code, errOut.String())
	}
	if pods, _ := c.Pods(ctx); len(pods) != 6 || pods[0].BuildTag == newVersion || pods[0].Maintenance {
		t.Fatalf("after a refused upgrade: %+v", pods)
	}

	var stdout, stderr bytes.Buffer
	code := cli.Main([]string{"fabric", "upgrade", "--to", build, "--rolling", "--yes", "--timeout", "60"}, strings.NewReader(""), &stdout, &stderr)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	if code != 0 {
		t.Fatalf("fabric upgrade: exit %d\n%s%s\n%s", code, stdout.String(), stderr.String(), dump())
	}
	t.Logf("fabric upgrade:\n%s%s", stdout.String(), stderr.String())

	// Every pod is back with its id, on the new build, to pods and to
	// NATS micro discovery.
	pods, err = c.Pods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := map[string]string{}
	for _, p := range pods {
		after[p.PodID] = p.PodType
		if p.BuildTag != newVersion || p.Maintenance {
			t.Errorf("pod %s: build %s, maintenance %v", p.PodID, p.BuildTag, p.Maintenance)
		}
	}
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("the pods were %v, are %v", before, after)
	}
	versions := microVersions(t, nc)
	for id := range before {
		if versions[id] != newVersion {
			t.Errorf("pod %s announces version %q to NATS micro discovery", id, versions[id])
		}
	}
	// No job lost or left Running; the instances stayed two.
	mu.Lock()
	defer mu.Unlock()
	if len(started) < 5 {
		t.Fatalf("only %d jobs started during the upgrade (refused: %q)", len(started), refused)
	}
	if len(refused) > 0 {
		// A scheduler going into maintenance hands its lease over, and a
		// client asks again until one acknowledges: no submission fails.
		t.Errorf("%d submissions refused: %q", len(refused), refused)
	}
	var states []string
	for _, id := range started {
		j, err := c.Wait(ctx, id, time.Minute, nil)
		if err != nil {
			t.Fatalf("job %s: %v", id, err)
		}
		if j.Status != api.JobCompleted {
			states = append(states, id+" "+j.Status+": "+j.Reason)
		}
	}
	sort.Strings(states)
	if len(states) > 0 {
		t.Fatalf("%d of %d jobs did not complete: %q", len(states), len(started), states)
	}
	if longestBelow > 2500*time.Millisecond {
		t.Errorf("fewer than two instances for %s", longestBelow)
	}
	if n := instances(); n != 2 {
		t.Errorf("%d instances after the upgrade", n)
	}
	t.Logf("%d jobs completed, %d submissions refused (%q), instances below two for at most %s", len(started), len(refused), refused, longestBelow)
}

// TestLocalUpgrade: the local fabric (one process: the server and every
// pod of two tenants) upgraded by client fabric upgrade: the build is
// copied into its builds directory, every pod drains, and the process
// (the same pid) runs the new build with the same pods; a job that ran
// during it completed.
func TestLocalUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fabricd twice")
	}
	bin := fabricdBinary(t)
	build := newBuild(t, t.TempDir(), "next", "9.9.9-local")
	home := t.TempDir()
	t.Setenv("FABRIC_HOME", home)
	t.Setenv("FABRIC_NETWORK_CONFIG", "")
	st := up(t, bin, home, "a", "b")
	pods := func(tenantName string) map[string]string {
		t.Helper()
		t.Setenv("FABRIC_NETWORK_CONFIG", filepath.Join(home, "tenants", tenantName, bus.ConfigFileName))
		out := map[string]string{}
		for _, p := range clientPods(t) {
			out[p.PodID] = p.PodType + " " + p.BuildTag
		}
		return out
	}
	before := map[string]map[string]string{"a": pods("a"), "b": pods("b")}
	// A job of two seconds runs as the upgrade starts: the drain waits
	// for it.
	cfgPath := filepath.Join(home, "tenants", "a", bus.ConfigFileName)
	t.Setenv("FABRIC_NETWORK_CONFIG", cfgPath)
	cfg, err := bus.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := bus.Connect(cfg, "local-upgrade-test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := client.New(nc)
	ctx := context.Background()
	resp, err := c.Run(ctx, api.RunRequest{Pipeline: "tick", Steps: []api.PipelineStep{{Tag: "@c:timed-loop", Query: "interval = 0.5 & count = 4"}, {Tag: "@dm:empty"}}}, client.Placement{Site: local.Site})
	if err != nil {
		t.Fatal(err)
	}
	// A tenant cannot upgrade the process it shares with the others:
	// without the owner's token the request is refused, and nothing
	// changes.
	cfgB, err := bus.LoadConfig(filepath.Join(home, "tenants", "b", bus.ConfigFileName))
	if err != nil {
		t.Fatal(err)
	}
	ncB, err := bus.Connect(cfgB, "tenant-b")
	if err != nil {
		t.Fatal(err)
	}
	defer ncB.Close()
	var someB string
	for id := range before["b"] {
		someB = id
	}
	if _, err := client.New(ncB).UpgradeAll(ctx, []string{someB}, api.UpgradeRequest{Build: "next", TimeoutSeconds: 30}, time.Minute); err == nil ||
		!strings.Contains(err.Error(), "only its owner upgrades it") {
		t.Fatalf("tenant b's upgrade without the token: %v", err)
	}
	var stdout, stderr bytes.Buffer
	if code := cli.Main([]string{"fabric", "upgrade", "--to", build, "--yes", "--timeout", "30"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("fabric upgrade: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, tn := range []string{"a", "b"} {
		after := pods(tn)
		if len(after) != len(before[tn]) {
			t.Fatalf("tenant %s: pods %v, were %v", tn, after, before[tn])
		}
		for id, was := range before[tn] {
			typ, _, _ := strings.Cut(was, " ")
			if after[id] != typ+" 9.9.9-local" {
				t.Errorf("tenant %s: pod %s is %q, was %q", tn, id, after[id], was)
			}
		}
	}
	if now, _ := local.Status(home); now == nil || now.PID != st.PID {
		t.Fatalf("the local fabric's state after the upgrade: %+v (pid was %d)", now, st.PID)
	}
	t.Setenv("FABRIC_NETWORK_CONFIG", cfgPath)
	j, err := c.Wait(ctx, resp.JobID, time.Minute, nil)
	if err != nil || j.Status != api.JobCompleted {
		t.Fatalf("the job that ran during the upgrade: %s %s %v", j.Status, j.Reason, err)
	}
}
