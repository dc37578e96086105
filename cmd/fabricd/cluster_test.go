package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/natsserver"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go/jetstream"
)

// TestServerConfigCommand: server-config renders, for each server of a
// cluster, a configuration nats-server accepts, with the same tenants and
// passwords on every server (kept in the credentials file), and the
// tenants' network configurations.
func TestServerConfigCommand(t *testing.T) {
	exe, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (make deps installs Debian's package)")
	}
	dir := t.TempDir()
	creds := filepath.Join(dir, "creds.json")
	var confs []string
	for i := 1; i <= 3; i++ {
		var stdout, stderr bytes.Buffer
		code := runServerConfig([]string{"--tenants", "acme,beta", "--credentials", creds, "--name", fmt.Sprintf("n%d", i),
			"--store-dir", filepath.Join(dir, fmt.Sprintf("js%d", i)), "--cluster", "fabric",
			"--routes", "nats://127.0.0.1:16222,nats://127.0.0.1:16223", "--network-configs", filepath.Join(dir, "net"),
			"--urls", "nats://127.0.0.1:4222"}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("server-config: %d %s", code, stderr.String())
		}
		conf := filepath.Join(dir, fmt.Sprintf("n%d.conf", i))
		os.WriteFile(conf, stdout.Bytes(), 0o600)
		if out, err := exec.Command(exe, "-t", "-c", conf).CombinedOutput(); err != nil {
			t.Fatalf("nats-server -t rejects:\n%s\n%s", stdout.String(), out)
		}
		confs = append(confs, stdout.String())
	}
	first := confs[0][strings.Index(confs[0], "accounts {"):]
	for _, c := range confs[1:] {
		if c[strings.Index(c, "accounts {"):] != first {
			t.Fatalf("the servers' tenants differ:\n%s\n%s", first, c)
		}
	}
	if st, err := os.Stat(creds); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v %v", st, err)
	}
	cfg, err := bus.LoadConfig(filepath.Join(dir, "net", "beta", bus.ConfigFileName))
	if err != nil || cfg.Tenant != "beta" || cfg.NATS.Password == "" || !strings.Contains(first, cfg.NATS.Password) {
		t.Fatalf("network configuration: %+v %v", cfg, err)
	}
	var stderr bytes.Buffer
	if code := runServerConfig([]string{"--tenants", "a"}, &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(stderr.String(), "--credentials is required") {
		t.Fatalf("without --credentials: %d %q", code, stderr.String())
	}
}

// startClusterServer starts a nats-server (one of a cluster, or alone) from o, with
// its ports picked by itself, and returns its client and route URLs.
func startClusterServer(t *testing.T, exe string, o natsserver.ServerOptions) (client, route string) {
	t.Helper()
	dir := t.TempDir()
	o.PortsFileDir = dir
	conf := filepath.Join(dir, "nats.conf")
	os.WriteFile(conf, []byte(natsserver.ServerConfig(o)), 0o600)
	cmd := exec.Command(exe, "-c", conf)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return waitPorts(t, dir, cmd.Process.Pid, &log)
}

// waitPorts waits until the nats-server of pid has written its ports file
// in dir (ServerOptions.PortsFileDir) and returns its client URL and, in
// a cluster, its route URL.
func waitPorts(t *testing.T, dir string, pid int, log *bytes.Buffer) (client, route string) {
	t.Helper()
	file := filepath.Join(dir, fmt.Sprintf("nats-server_%d.ports", pid))
	for deadline := time.Now().Add(15 * time.Second); ; {
		var ports struct{ Nats, Cluster []string }
		if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &ports) == nil && len(ports.Nats) > 0 {
			if c, err := net.Dial("tcp", strings.TrimPrefix(ports.Nats[0], "nats://")); err == nil {
				c.Close()
				if len(ports.Cluster) > 0 {
					route = ports.Cluster[0]
				}
				return ports.Nats[0], route
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 15s waiting for nats-server's ports file %s:\n%s", file, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClusterKeepsThreeReplicas: on a JetStream cluster of three
// nats-servers (configured as server-config renders them), the buckets
// the fabric creates keep three replicas.
func TestClusterKeepsThreeReplicas(t *testing.T) {
	exe, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (make deps installs Debian's package)")
	}
	tenant, err := bus.NewTenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	// A JetStream cluster needs its routes configured from the start, so
	// the route ports are chosen first (the client ports the servers pick).
	ports := fabrictest.Ports(t, "tcp", 3)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	opts := func(i int) natsserver.ServerOptions {
		return natsserver.ServerOptions{Name: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: -1, StoreDir: filepath.Join(t.TempDir(), "js"),
			Tenants: []bus.Tenant{tenant}, Cluster: &natsserver.Cluster{Name: "fabric", Port: ports[i-1], Routes: routes}}
	}
	url1, _ := startClusterServer(t, exe, opts(1))
	url2, _ := startClusterServer(t, exe, opts(2))
	url3, _ := startClusterServer(t, exe, opts(3))
	cfg := &bus.Config{Tenant: "acme", NATS: bus.NATSConfig{URLs: []string{url1, url2, url3}, User: tenant.User, Password: tenant.Password}}
	nc, err := bus.Connect(cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// The cluster needs a moment to elect its JetStream leader.
	var s *store.Store
	for deadline := time.Now().Add(30 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, err = store.Open(ctx, nc)
		if err == nil {
			// The object store is made on first use.
			_, err = s.PutBlob(ctx, "cluster-test", strings.NewReader("x"))
		}
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster's JetStream never answered: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r := store.Replicas(nc); r != 3 {
		t.Fatalf("replicas on a cluster of 3: %d", r)
	}
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, "OBJ_fabric_objects")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil || info.Config.Replicas != 3 {
		t.Fatalf("the object store keeps %d replicas: %v", info.Config.Replicas, err)
	}
}
