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
	"syscall"
	"testing"
	"time"

	"github.com/fabricops/fabric/cli"
	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/natsserver"
	"github.com/fabricops/fabric/fabric/infra/tenant/tables"
	"github.com/fabricops/fabric/fabric/pods/runner"
)

// clusterServer is a nats-server process of a test cluster that can be
// killed and started again on the same store.
type clusterServer struct {
	t    *testing.T
	exe  string
	conf string
	dir  string
	cmd  *exec.Cmd
	log  bytes.Buffer
	url  string
}

func (s *clusterServer) start() {
	s.t.Helper()
	s.log.Reset()
	s.cmd = exec.Command(s.exe, "-c", s.conf)
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.url, _ = waitPorts(s.t, s.dir, s.cmd.Process.Pid, &s.log)
}

func (s *clusterServer) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
}

// cliRun runs the client in-process and returns stdout, stderr and code.
func cliRun(args ...string) (string, string, int) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// TestClusterSurvivesAServer: on a JetStream cluster of three nats-server
// processes, with jobs running and datasets added, one server is killed
// (kill -9) and later started again. The killed server is the one the
// pods and a long-lived client are connected to (their configuration
// names only it; they learn the others from the cluster), and a long job
// is running on a worker when it dies. Every acknowledged write is
// readable, no job is lost or stays Running, and the pods and clients
// reconnect by themselves.
func TestClusterSurvivesAServer(t *testing.T) {
	exe, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (make deps installs Debian's package)")
	}
	tenant, err := bus.NewTenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	ports := fabrictest.Ports(t, "tcp", 3)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	var servers []*clusterServer
	var urls []string
	for i := range 3 {
		dir := t.TempDir()
		o := natsserver.ServerOptions{Name: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: -1, StoreDir: filepath.Join(dir, "js"),
			Tenants: []bus.Tenant{tenant}, PortsFileDir: dir, Cluster: &natsserver.Cluster{Name: "fabric", Port: ports[i], Routes: routes}}
		s := &clusterServer{t: t, exe: exe, conf: filepath.Join(dir, "nats.conf"), dir: dir}
		os.WriteFile(s.conf, []byte(natsserver.ServerConfig(o)), 0o600)
		s.start()
		t.Cleanup(s.kill)
		servers = append(servers, s)
		urls = append(urls, s.url)
	}
	cfg := &bus.Config{Tenant: "acme", NATS: bus.NATSConfig{URLs: urls, User: tenant.User, Password: tenant.Password}}
	home := t.TempDir()
	t.Setenv("FABRIC_HOME", home)
	path := filepath.Join(home, "acme.json")
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FABRIC_NETWORK_CONFIG", path)

	// The pods and a long-lived client, on the server that will die,
	// once the cluster's JetStream answers.
	onVictim := &bus.Config{Tenant: "acme", NATS: bus.NATSConfig{URLs: []string{servers[1].url}, User: tenant.User, Password: tenant.Password}}
	var r *runner.Runner
	for deadline := time.Now().Add(30 * time.Second); ; {
		r, err = runner.Start(runner.Options{Config: onVictim, Pods: []string{api.APIServer, api.Scheduler, api.Worker, api.Worker},
			Site: "dc1", CapacityFilter: "pod_usage_active_jobs < 100"})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pods could not start on the cluster: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	defer r.Stop()
	long, err := client.Connect(onVictim)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Close()

	dir := t.TempDir()
	pl := filepath.Join(dir, "hosts.pipeline")
	os.WriteFile(pl, []byte("@dm:empty\n  --> @dm:addrow host = 'web-1' & cpu = 93.5\n"), 0o644)
	var acked []string
	var jobs []string
	work := func(round int) {
		name := fmt.Sprintf("d%03d", round)
		csv := filepath.Join(dir, name+".csv")
		os.WriteFile(csv, []byte(fmt.Sprintf("host,n\nweb-1,%d\n", round)), 0o644)
		if _, _, code := cliRun("dataset", "add", "--name", name, "--file", csv); code == 0 {
			acked = append(acked, name)
		}
		out, errOut, code := cliRun("run", "--file", pl)
		var resp api.StartResponse
		if code == 0 && json.Unmarshal([]byte(out), &resp) == nil && resp.Status == "started" {
			jobs = append(jobs, resp.JobID)
		} else {
			t.Logf("round %d: run: %d %s %s", round, code, out, errOut)
		}
	}
	round := 0
	for ; round < 5; round++ {
		work(round)
	}
	// A job that runs across the kill and the restart.
	slow := filepath.Join(dir, "slow.pipeline")
	os.WriteFile(slow, []byte("@c:timed-loop interval = 1 & duration = 6\n  --> @dm:empty\n"), 0o644)
	out, errOut, code := cliRun("run", "--file", slow)
	var resp api.StartResponse
	if code != 0 || json.Unmarshal([]byte(out), &resp) != nil || resp.Status != "started" {
		t.Fatalf("the long job: %d %s %s", code, out, errOut)
	}
	jobs = append(jobs, resp.JobID)
	time.Sleep(time.Second)
	servers[1].kill()
	for ; round < 15; round++ {
		work(round)
	}
	servers[1].start()
	for ; round < 20; round++ {
		work(round)
	}
	if len(acked) < 15 || len(jobs) < 15 {
		t.Fatalf("too few writes went through with one server down: %d datasets, %d jobs", len(acked), len(jobs))
	}
	for _, name := range acked {
		out, errOut, code := cliRun("dataset", "get", "--name", name, "--format", "csv")
		if code != 0 || !strings.HasPrefix(out, "host,n\nweb-1,") {
			t.Errorf("acknowledged dataset %s: %d %q %q", name, code, out, errOut)
		}
	}
	for _, id := range jobs {
		var j api.Job
		for deadline := time.Now().Add(30 * time.Second); ; {
			out, _, code := cliRun("jobs", "--all", "--json")
			var js []api.Job
			if code == 0 && json.Unmarshal([]byte(out), &js) == nil {
				for _, x := range js {
					if x.JobID == id {
						j = x
					}
				}
			}
			if j.JobID != "" && !api.JobActive(j.Status) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s is still %q 30s after the last write", id, j.Status)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if j.Status != api.JobCompleted {
			t.Errorf("job %s ended %s: %s", id, j.Status, j.Reason)
		}
	}
	if out, errOut, code := cliRun("pods", "--json"); code != 0 || strings.Count(out, `"pod_id"`) != 4 {
		t.Errorf("pods after the restart: %d %s %s", code, out, errOut)
	}
	// The long-lived client reconnected by itself.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if pods, err := long.Pods(ctx); err != nil || len(pods) != 4 {
		t.Errorf("the long-lived client after the kill: %d pods, %v", len(pods), err)
	}
	if src, _, err := tables.New(long.Data).OpenDataset(ctx, acked[0]); err != nil {
		t.Errorf("the long-lived client reading %s: %v", acked[0], err)
	} else {
		src.Close()
	}
}
