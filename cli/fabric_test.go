package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/nats-io/nats.go"
)

// spec21 lists every field of a pod object (SPEC 2.1), nested ones as
// "parent.child".
var spec21 = []string{"now", "started_at", "pod_type", "pod_category", "pod_id", "hostname", "proc_id",
	"labels.tenant_name", "labels.fx_platform_version", "labels.fx_messenger_version", "labels.fx_pod_version",
	"labels.fx_license_valid", "labels.fx_license_not_expired", "labels.fx_license_expiration_date",
	"build_tag", "requests.auto", "requests.direct",
	"resources.cpu_count", "resources.cpu_load1", "resources.cpu_load5", "resources.cpu_load15",
	"resources.mem_total_gb", "resources.mem_available_gb", "resources.mem_percent", "resources.mem_used_gb",
	"resources.mem_free_gb", "resources.mem_active_gb", "resources.mem_inactive_gb",
	"resources.pod_usage_active_jobs", "resources.pod_usage_total_jobs",
	"pod_leader", "objstore_info.host", "objstore_info.config_checksum",
	"group", "group_id", "site_name", "site_id", "public_access", "capacity_filter", "_local_time"}

func podsJSON(t *testing.T) []map[string]any {
	t.Helper()
	out, errOut, code := run(t, "", "pods", "--json")
	if code != 0 {
		t.Fatalf("pods --json: exit %d: %s", code, errOut)
	}
	var pods []map[string]any
	if err := json.Unmarshal([]byte(out), &pods); err != nil {
		t.Fatalf("pods --json is not JSON: %v\n%s", err, out)
	}
	return pods
}

func TestPodsJSONHasEverySpecField(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	pods := podsJSON(t)
	types := map[string]int{}
	for _, p := range pods {
		types[p["pod_type"].(string)]++
		for _, field := range spec21 {
			obj, key := p, field
			if parent, child, ok := strings.Cut(field, "."); ok {
				obj, _ = p[parent].(map[string]any)
				key = child
			}
			if _, ok := obj[key]; !ok {
				t.Errorf("pod %v lacks %s", p["pod_id"], field)
			}
		}
		if id := p["pod_id"].(string); len(id) != 8 || strings.Trim(id, "0123456789abcdef") != "" {
			t.Errorf("pod_id %q is not 8 hex", id)
		}
	}
	for _, want := range api.PodTypes {
		if types[want] == 0 {
			t.Errorf("no %s pod in %v", want, types)
		}
	}
	if types[api.Worker] != 2 {
		t.Errorf("want 2 workers, got %d", types[api.Worker])
	}
}

func TestPodsTable(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	out, _, code := run(t, "", "pods")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2+len(fabrictest.DefaultPods) {
		t.Fatalf("exit %d, want header, rule and %d pods:\n%s", code, len(fabrictest.DefaultPods), out)
	}
	if !strings.HasPrefix(lines[0], "Cat    Pod-Type       Host") || strings.Count(out, "*leader*") != 1 {
		t.Fatalf("unexpected table:\n%s", out)
	}
	out, _, _ = run(t, "", "pods", "--type", "worker", "--versions")
	if strings.Count(out, "worker") != 2 || !strings.Contains(out, "Messenger Version") {
		t.Fatalf("--type worker --versions:\n%s", out)
	}
}

func TestHealthcheck(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	out, errOut, code := run(t, "", "healthcheck", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []api.HealthRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	params := map[string]bool{}
	for _, r := range rows {
		params[r.Parameter] = true
		if r.Status != api.StatusOK {
			t.Errorf("not ok: %+v", r)
		}
	}
	for _, want := range []string{"service-status", "objstore-connectivity", "kv-connectivity", "service-initialization-status", "service-dependency:api-server", "service-dependency:scheduler"} {
		if !params[want] {
			t.Errorf("no %s row", want)
		}
	}
	out, _, code = run(t, "", "healthcheck", "--infra")
	if code != 0 || strings.Contains(out, "worker") || !strings.Contains(out, "Health Parameter") {
		t.Errorf("--infra: %d\n%s", code, out)
	}
	out, _, code = run(t, "", "healthcheck", "--apps", "--simple")
	if code != 0 || strings.Contains(out, "scheduler") || strings.Count(out, " ok") != 3 {
		t.Errorf("--apps --simple: %d\n%s", code, out)
	}
	_, errOut, code = run(t, "", "healthcheck", "--infra", "--apps")
	if code != 2 || !strings.Contains(errOut, "--infra and --apps cannot be used together") {
		t.Errorf("--infra --apps: %d %q", code, errOut)
	}
}

func TestStoppedWorkerDisappears(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	worker := f.PodsOf("a", api.Worker)[0]
	if err := f.Runners["a"].StopPod(worker); err != nil {
		t.Fatal(err)
	}
	for _, p := range podsJSON(t) {
		if p["pod_id"] == worker {
			t.Fatalf("stopped worker %s still listed", worker)
		}
	}
}

func TestSchedulerFailover(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Scheduler}})
	leader := func() (string, int) {
		id, n := "", 0
		for _, p := range podsJSON(t) {
			if p["pod_leader"] == true {
				id, n = p["pod_id"].(string), n+1
			}
		}
		return id, n
	}
	first, n := leader()
	if n != 1 {
		t.Fatalf("want exactly one leader, got %d", n)
	}
	if err := f.Runners["a"].StopPod(first); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if id, n := leader(); n == 1 && id != first {
			out, _, _ := run(t, "", "pods")
			if !strings.Contains(out, id+"  *leader*") {
				t.Fatalf("table does not mark the new leader %s:\n%s", id, out)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no other scheduler took over within 10s after %s stopped", first)
}

func TestTenantIsolation(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}})
	f.UseTenant(t, "b")
	ids := map[string]bool{}
	for _, p := range podsJSON(t) {
		ids[p["pod_id"].(string)] = true
		if p["labels"].(map[string]any)["tenant_name"] != "b" {
			t.Errorf("tenant b sees pod of tenant %v", p["labels"])
		}
	}
	for _, r := range f.Runners["a"].Pods() {
		if ids[r.PodID] {
			t.Errorf("tenant b sees tenant a's pod %s", r.PodID)
		}
	}
	// b cannot reach a's subjects: a subscription to everything hears
	// nothing of a's traffic, and a's pods do not answer b.
	nb, err := bus.Connect(f.Configs["b"], "spy")
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	aPod := f.Runners["a"].Pods()[0].PodID
	if _, err := nb.Request(api.PodSubject(aPod, api.EndpointInfo), nil, time.Second); err != nats.ErrNoResponders {
		t.Fatalf("tenant b reached tenant a's pod: %v", err)
	}
	spy, err := nb.SubscribeSync(">")
	if err != nil {
		t.Fatal(err)
	}
	nb.Flush()
	na, err := bus.Connect(f.Configs["a"], "a")
	if err != nil {
		t.Fatal(err)
	}
	defer na.Close()
	if _, err := na.Request(api.PodSubject(aPod, api.EndpointInfo), nil, 2*time.Second); err != nil {
		t.Fatalf("tenant a cannot reach its own pod: %v", err)
	}
	na.Publish("fabric.api.pods", []byte("secret"))
	na.Flush()
	if m, err := spy.NextMsg(300 * time.Millisecond); err == nil && strings.Contains(m.Subject, aPod) || err == nil && string(m.Data) == "secret" {
		t.Fatalf("tenant b heard tenant a's traffic on %s", m.Subject)
	}
}

func TestNetworkConfigErrors(t *testing.T) {
	dir := t.TempDir()
	// Port 1: nothing listens there, and no other test can take it (a
	// port found free could be bound by a test running meanwhile).
	port := 1
	unreachable := &bus.Config{Tenant: "a", NATS: bus.NATSConfig{URLs: []string{"nats://127.0.0.1:" + strconv.Itoa(port)}, User: "a", Password: "x"}}
	unreachablePath := filepath.Join(dir, "unreachable.json")
	if err := unreachable.Save(unreachablePath); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "none.json"), "no network configuration at " + filepath.Join(dir, "none.json")},
		{"malformed", write(t, dir, "bad.json", `{"tenant": "a", "nats": {"urls": [}`), "bad.json is malformed: line 1"},
		{"unknown field", write(t, dir, "odd.json", `{"tenant": "a", "nats": {"urls": ["nats://x:1"]}, "colour": 1}`), `unknown field "colour"`},
		{"incomplete", write(t, dir, "inc.json", `{"nats": {"urls": ["nats://x:1"]}}`), `"tenant" is missing`},
		{"unreachable", unreachablePath, "cannot reach the fabric at nats://127.0.0.1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("FABRIC_NETWORK_CONFIG", tt.path)
			out, errOut, code := run(t, "", "pods")
			if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want one line with %q", code, out, errOut, tt.want)
			}
		})
	}
}

func TestNetworkConfigFileMode(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	st, err := os.Stat(f.ConfigPath("a"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("network configuration mode %v (%v), want 0600", st.Mode(), err)
	}
	out, _, code := run(t, "", "fabric", "config")
	if code != 0 || strings.Contains(out, f.Configs["a"].NATS.Password) || !strings.Contains(out, "<redacted>") {
		t.Fatalf("fabric config must redact the password:\n%s", out)
	}
}

func TestAgentsAndSites(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	out, errOut, code := run(t, "", "agents", "--group", "local")
	if code != 0 || !strings.Contains(errOut, "warning: --group is deprecated, use --site") ||
		!strings.HasPrefix(out, "Agent-Type     Host") || !strings.Contains(out, "event-gateway") {
		t.Fatalf("agents --group: %d %q\n%s", code, errOut, out)
	}
	out, _, _ = run(t, "", "agents", "--site", "elsewhere")
	if strings.Contains(out, "event-gateway") {
		t.Fatalf("agents --site elsewhere:\n%s", out)
	}
	out, _, code = run(t, "", "site-summary")
	if code != 0 || !strings.Contains(out, "local  3     2        1") {
		t.Fatalf("site-summary:\n%s", out)
	}
}

func TestPodController(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	out, _, code := run(t, "", "pod-controller", "status")
	if code != 0 || strings.Count(out, "running") != len(fabrictest.DefaultPods) {
		t.Fatalf("status:\n%s", out)
	}
	worker := f.PodsOf("a", api.Worker)[0]
	out, errOut, code := run(t, "", "pod-controller", "restart", "--pod-id", worker)
	if code != 0 || !strings.Contains(out, "Restarted worker pod "+worker+" (restarts: 1)") {
		t.Fatalf("restart: %d %q %q", code, out, errOut)
	}
	var ids []string
	for _, p := range podsJSON(t) {
		ids = append(ids, p["pod_id"].(string))
	}
	sort.Strings(ids)
	if i := sort.SearchStrings(ids, worker); i == len(ids) || ids[i] != worker {
		t.Fatalf("restarted pod %s is not back in %v", worker, ids)
	}
	_, errOut, code = run(t, "", "pod-controller", "restart", "--pod-id", "00000000")
	if code != 1 || !strings.Contains(errOut, "no live pod with id 00000000") {
		t.Fatalf("unknown pod: %d %q", code, errOut)
	}
}
