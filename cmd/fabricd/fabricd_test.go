package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricops/fabric/cli"
	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/natsserver"
	"github.com/fabricops/fabric/fabric/pods/runner"
)

// startNATS starts Debian's nats-server as a separate process with one
// tenant account, and returns its URL.
func startNATS(t *testing.T, tenant bus.Tenant) string {
	t.Helper()
	exe, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (make deps installs Debian's package)")
	}
	// The server picks its own port (-1) and says which in its ports
	// file: a port found free first could be taken by another test
	// before the server binds it (the packages' tests run in parallel).
	url, _ := startClusterServer(t, exe, natsserver.ServerOptions{Name: "standalone", Host: "127.0.0.1", Port: -1,
		StoreDir: filepath.Join(t.TempDir(), "js"), Tenants: []bus.Tenant{tenant}})
	return url
}

func clientPods(t *testing.T) []api.PodInfo {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.Main([]string{"pods", "--json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("client pods: exit %d: %s", code, stderr.String())
	}
	var pods []api.PodInfo
	if err := json.Unmarshal(stdout.Bytes(), &pods); err != nil {
		t.Fatal(err)
	}
	return pods
}

// TestFabricdAgainstStandaloneNATS runs fabricd as a process against a
// standalone nats-server, a second host's pods in-process, and the client
// by URL: all see each other.
func TestFabricdAgainstStandaloneNATS(t *testing.T) {
	tenant, err := bus.NewTenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	url := startNATS(t, tenant)

	bin := fabricdBinary(t)
	d := exec.Command(bin, "--nats", url, "--tenant", "acme", "--user", "acme", "--pods", "api-server,scheduler,worker", "--site", "edge")
	d.Env = append(os.Environ(), "FABRIC_PASSWORD="+tenant.Password)
	var dlog bytes.Buffer
	d.Stdout, d.Stderr = &dlog, &dlog
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Kill() })

	// A second host: a worker of site dc2, connected by URL.
	cfg := &bus.Config{Tenant: "acme", NATS: bus.NATSConfig{URLs: []string{url}, User: "acme", Password: tenant.Password}}
	other, err := runner.Start(runner.Options{Config: cfg, Pods: []string{api.Worker}, Site: "dc2"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Stop()

	home := t.TempDir()
	t.Setenv("FABRIC_HOME", home)
	path := filepath.Join(home, "acme.json")
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FABRIC_NETWORK_CONFIG", path)

	var pods []api.PodInfo
	for deadline := time.Now().Add(15 * time.Second); ; {
		pods = clientPods(t)
		if len(pods) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("want 4 pods (3 of fabricd, 1 of the other host), got %d\nfabricd log:\n%s", len(pods), dlog.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	sites := map[string]int{}
	for _, p := range pods {
		sites[p.SiteName]++
		if p.Labels.TenantName != "acme" || p.Labels.MessengerVersion != "2.9.10" && !strings.HasPrefix(p.Labels.MessengerVersion, "2.") {
			t.Errorf("labels %+v", p.Labels)
		}
	}
	if sites["edge"] != 1 || sites["dc2"] != 1 || sites[""] != 2 {
		t.Errorf("sites %v", sites)
	}
	var stdout, stderr bytes.Buffer
	if code := cli.Main([]string{"healthcheck"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Errorf("healthcheck: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}

	// A graceful stop takes fabricd's pods away at once.
	if err := d.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("fabricd exited with %v\n%s", err, dlog.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("fabricd did not stop within 15s of SIGTERM\n%s", dlog.String())
	}
	if pods := clientPods(t); len(pods) != 1 || pods[0].SiteName != "dc2" {
		t.Fatalf("after fabricd stopped, want only the dc2 worker: %+v", pods)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	yml := filepath.Join(dir, "f.yaml")
	os.WriteFile(yml, []byte("nats: nats://127.0.0.1:1\ncolour: red\n"), 0o600)
	tests := []struct {
		args []string
		want string
	}{
		{nil, "give --network-config FILE or --nats URL"},
		{[]string{"--nats", "nats://x:1"}, "--nats needs --tenant"},
		{[]string{"--nats", "nats://x:1", "--tenant", "t", "--pods", "worker,robot"}, `unknown pod type "robot"`},
		{[]string{"--nats", "nats://x:1", "--tenant", "t"}, "--pods: no pod types given"},
		{[]string{"--network-config", "a.json", "--nats", "nats://x:1"}, "not both"},
		{[]string{"--config", yml}, "field colour not found"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--nats", "nats://x:1", "--tenant", "t", "--pods", "worker", "--license-expires", "soon"}, "want YYYY-MM-DD"},
		{[]string{"--nats", "nats://x:1", "--tenant", "t", "--pods", "graphdb"}, "a graphdb pod needs --graphdb-dir"},
		{[]string{"--nats", "nats://x:1", "--tenant", "t", "--pods", "graphdb", "--graphdb-dir", dir}, "needs the graphdb user and password"},
		{[]string{"local", "--graphdb-url", "arango:8529"}, "want http(s)://host:port or embedded"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		if code := run(tt.args, &stderr, nil); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

func TestParseSettings(t *testing.T) {
	s, err := ParseSettings([]byte("network_config: /etc/fabric/net.json\npods: [api-server, worker, worker]\nsite: dc1\n"))
	if err != nil || s.NetworkConfig != "/etc/fabric/net.json" || len(s.Pods) != 3 || s.Site != "dc1" {
		t.Fatalf("%+v %v", s, err)
	}
}

// FuzzParseSettings checks that no YAML makes the settings parser panic.
func FuzzParseSettings(f *testing.F) {
	f.Add("nats: nats://h:4222\ntenant: t\npods: [worker]\n")
	f.Add("pods: {a: 1}\n")
	f.Add("- [")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseSettings([]byte(s))
	})
}
