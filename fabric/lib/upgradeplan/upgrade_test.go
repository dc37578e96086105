package upgradeplan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/deploydir"
	"gopkg.in/yaml.v3"
)

const sample = "../../../examples/upgrade/deployment-8.0.0"

// copySample copies the sample deployment directory to a new one.
func copySample(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "deployment")
	err := filepath.WalkDir(sample, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(sample, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// sums is a checksum of every file and directory under dir.
func sums(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = "dir"
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(s[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func same(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	var diff []string
	for k, v := range a {
		if b[k] != v {
			diff = append(diff, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("%s changed %v", what, diff)
	}
}

func options(dir string) Options {
	return Options{Dir: dir, From: "8.0.0", To: "8.1.0.1", KeyFile: filepath.Join(filepath.Dir(dir), "policy.key"),
		Statfs: func(string) (Usage, error) { return Usage{Total: 100 << 30, Free: 50 << 30, Avail: 45 << 30}, nil },
		Now:    func() time.Time { return time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC) }}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// services returns the sections of values.yaml.
func services(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	var m map[string]map[string]any
	if err := yaml.Unmarshal([]byte(readFile(t, dir, deploydir.Values)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestApplyTheSample(t *testing.T) {
	dir := copySample(t)
	o := options(dir)
	o.Proxy = "http://proxy.acme.example:3128"
	before := sums(t, dir)
	if _, err := MakePlan(o); err != nil {
		t.Fatal(err)
	}
	same(t, "plan", before, sums(t, dir))

	res, err := Apply(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 15 || res.Done || len(res.Manual) != 19 {
		t.Fatalf("applied %d, manual %d, done %v", len(res.Applied), len(res.Manual), res.Done)
	}

	svc := services(t, dir)
	geo := svc["geodr_api_server"]
	if geo["mem_limit"] != "2G" || geo["memswap_limit"] != "2G" || geo["privileged"] != true || geo["deployment"] != false {
		t.Errorf("geodr_api_server: %v", geo)
	}
	env := geo["environment"].(map[string]any)
	if env["RDA_ENABLE_TRACES"] != "no" || env["DISABLE_REMOTE_LOGGING_CONTROL"] != "no" || env["RDA_SELF_HEALTH_RESTART_AFTER_FAILURES"] != 3 {
		t.Errorf("geodr_api_server environment: %v", env)
	}
	if h := geo["hosts"].([]any); len(h) != 2 || h[0] != "192.168.10.11" {
		t.Errorf("geodr_api_server hosts: %v", h)
	}
	values := readFile(t, dir, deploydir.Values)
	if !strings.Contains(values, "    - 192.168.10.12 # platform VM 2\n# The Geo DR API server") {
		t.Errorf("geodr_api_server is not right after rda_api_server:\n%s", values)
	}
	for _, c := range []string{"# values.yaml: the services", "# Workers run the pipelines", "# stale instances are purged after this many days", "# Not a service: the product's own settings"} {
		if !strings.Contains(values, c) {
			t.Errorf("comment %q lost", c)
		}
	}
	fsm := svc["rda_fsm"]["environment"].(map[string]any)
	if fsm["PURGE_STALE_INSTANCES_DAYS"] != 90 || fsm["FSM_INSTANCE_CACHE_SIZE"] != 2000 || fsm["PURGE_COMPLETED_INSTANCES_DAYS"] != 1 {
		t.Errorf("rda_fsm: %v", fsm)
	}
	ing := svc["rda_alert_ingester"]["environment"].(map[string]any)
	if ing["INBOUND_PARTITION_WORKERS_MAX"] != 1 || ing["OUTBOUND_TOPIC_WORKERS_MAX"] != 1 || ing["DISABLE_REMOTE_LOGGING_CONTROL"] != "no" {
		t.Errorf("rda_alert_ingester: %v", ing)
	}
	if ec := svc["rda_event_consumer"]["environment"].(map[string]any); ec["OUTBOUND_WORKERS_MAX"] != 3 {
		t.Errorf("rda_event_consumer: %v", ec)
	}
	for name, s := range svc {
		if name == "rdaf_settings" {
			if s["docker_registry"] != "registry.acme.internal:5000" || s["cap_add"] != nil {
				t.Errorf("rdaf_settings: %v", s)
			}
			continue
		}
		caps, _ := s["cap_add"].([]any)
		if n := strings.Count(strings.Join(strs(caps), ","), "SYS_PTRACE"); n != 1 {
			t.Errorf("%s: cap_add %v", name, caps)
		}
	}
	for _, gone := range deploydir.Removed {
		if svc[gone] != nil {
			t.Errorf("%s is still there", gone)
		}
	}
	for _, s := range []string{"rda_api_server", "rda_worker"} {
		e := svc[s]["environment"].(map[string]any)
		for _, k := range []string{"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"} {
			if e[k] != o.Proxy {
				t.Errorf("%s %s = %v", s, k, e[k])
			}
		}
		if np, _ := e["NO_PROXY"].(string); !strings.Contains(np, "192.168.10.21") || e["no_proxy"] != np {
			t.Errorf("%s NO_PROXY = %v", s, e["NO_PROXY"])
		}
	}
	if svc["rda_fsm"]["environment"].(map[string]any)["http_proxy"] != nil {
		t.Error("the FSM got proxy variables")
	}

	// policy.json: the credentials sealed, the rest as it was.
	var pol struct {
		Users       []map[string]string `json:"users"`
		ObjectStore map[string]string   `json:"object_store"`
		LogLevel    string              `json:"log_level"`
	}
	if err := json.Unmarshal([]byte(readFile(t, dir, deploydir.Policy)), &pol); err != nil {
		t.Fatal(err)
	}
	key, err := deploydir.ReadKey(o.KeyFile, false)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(o.KeyFile); st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", st.Mode().Perm())
	}
	enc, _ := deploydir.NewEncrypter(key)
	if p, err := enc.Decrypt(pol.Users[1]["password"]); err != nil || p != "C0llect-0r" || pol.Users[1]["user"] != "collector@acme.example" {
		t.Errorf("policy users: %v (%q %v)", pol.Users, p, err)
	}
	if p, err := enc.Decrypt(pol.ObjectStore["secret_key"]); err != nil || p != "m1n10-S3cret" || pol.LogLevel != "INFO" {
		t.Errorf("policy object store: %v", pol.ObjectStore)
	}
	if b := readFile(t, dir, deploydir.Policy+BackupSuffix); b != readFile(t, sample, deploydir.Policy) {
		t.Error("policy.json's backup is not the original")
	}

	// haproxy.cfg, nats.conf, compose files, stream, directories.
	secs, err := deploydir.ParseHAProxy([]byte(readFile(t, dir, deploydir.HAProxy)))
	if err != nil {
		t.Fatal(err)
	}
	wb := secs[len(secs)-1]
	if wb.Name != "webhook" || !strings.Contains(strings.Join(wb.Body, "\n"), "option httpchk GET /healthcheck") || len(wb.Servers()) != 2 || wb.Servers()[1].Address != "192.168.10.52:8888" {
		t.Errorf("webhook backend: %+v", wb)
	}
	if !strings.Contains(readFile(t, dir, deploydir.HAProxy), "# The portal, on the platform VMs.") {
		t.Error("haproxy.cfg lost a comment")
	}
	if n := readFile(t, dir, deploydir.NATS); strings.Contains(n, "jetstream") || !strings.Contains(n, "# Message bus (NATS)") {
		t.Errorf("nats.conf:\n%s", n)
	}
	v, err := deploydir.ReadVersions([]byte(readFile(t, dir, deploydir.Infra)), []byte(readFile(t, dir, deploydir.Platform)))
	if err != nil || v != (deploydir.Versions{Platform: "8.1.0.1", Infra: "1.0.4", LoadBalancer: "1.0.4"}) {
		t.Errorf("versions %+v %v", v, err)
	}
	for _, f := range []string{deploydir.Gateway, deploydir.Studio} {
		imgs, _ := deploydir.Images([]byte(readFile(t, dir, f)))
		if len(imgs) != 1 || !strings.HasSuffix(imgs[0], ":8.1.0.1") {
			t.Errorf("%s: %v", f, imgs)
		}
	}
	if g := readFile(t, dir, deploydir.Gateway); !strings.Contains(g, "AGENT_GROUP: dc-east") || !strings.Contains(g, "# Event gateway of site dc-east") {
		t.Errorf("gateway compose:\n%s", g)
	}
	var stream map[string]any
	_ = json.Unmarshal([]byte(readFile(t, dir, deploydir.AlertStream)), &stream)
	if _, ok := stream["retention_days"]; ok || stream["retention_purge_extra_filter"] != nil || stream["name"] != "oia-alerts-payload" {
		t.Errorf("stream: %v", stream)
	}
	for _, d := range []string{"deployment-scripts/192.168.10.11", "deployment-scripts/192.168.10.22", "config/runtime"} {
		if st, err := os.Stat(filepath.Join(dir, d)); err != nil || !st.IsDir() {
			t.Errorf("no directory %s", d)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "deployment-scripts/192.168.10.31")); err == nil {
		t.Error("an application host got a directory")
	}
	if readFile(t, dir, deploydir.LogRotate) != deploydir.LogRotation {
		t.Error("no log rotation")
	}

	// A second apply changes nothing, byte for byte.
	after := sums(t, dir)
	res, err = Apply(o)
	if err != nil || len(res.Applied) != 0 {
		t.Fatalf("second apply: %d applied, %v", len(res.Applied), err)
	}
	same(t, "a second apply", after, sums(t, dir))

	// Confirming the manual steps completes it.
	var ids []string
	for _, m := range res.Manual {
		ids = append(ids, m.ID)
	}
	if _, err := ConfirmSteps(o, ids); err != nil {
		t.Fatal(err)
	}
	if res, err = Apply(o); err != nil || !res.Done {
		t.Fatalf("after confirming: %+v %v", res, err)
	}
	rows, _ := Status(dir)
	for _, r := range rows {
		if r.Status != Done || r.At != "2026-11-27T01:02:03Z" {
			t.Errorf("status of %s: %s %s", r.ID, r.Status, r.At)
		}
	}
}

func strs(a []any) []string {
	var out []string
	for _, x := range a {
		out = append(out, x.(string))
	}
	return out
}

func TestApplyResumes(t *testing.T) {
	full := copySample(t)
	if _, err := Apply(options(full)); err != nil {
		t.Fatal(err)
	}
	dir := copySample(t)
	o := options(dir)
	o.StopAfter = "4"
	res, err := Apply(o)
	if err != nil || res.Stopped != "4" || res.Applied[len(res.Applied)-1].ID != "4" {
		t.Fatalf("stopped run: %+v %v", res, err)
	}
	rows, _ := Status(dir)
	for _, r := range rows {
		if r.ID == "5" && r.Status != Pending || r.ID == "4" && r.Status != Done {
			t.Errorf("step %s: %s", r.ID, r.Status)
		}
	}
	o.StopAfter = ""
	res, err = Apply(o)
	if err != nil || res.Applied[0].ID != "5" {
		t.Fatalf("resumed run: %+v %v", res, err)
	}
	// The resumed directory is the uninterrupted one, but for the
	// sealed credentials (random nonces).
	a, b := sums(t, full), sums(t, dir)
	delete(a, deploydir.Policy)
	delete(b, deploydir.Policy)
	same(t, "a resumed apply (against one run)", a, b)
}

func TestDryRunAndPlanWriteNothing(t *testing.T) {
	dir := copySample(t)
	o := options(dir)
	before := sums(t, dir)
	p, err := MakePlan(o)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "plan", before, sums(t, dir))
	if _, err := os.Stat(o.KeyFile); err == nil {
		t.Error("plan made a key")
	}
	var diffs int
	for _, s := range p.Steps {
		if s.Diff != "" {
			diffs++
		}
		if s.ID == "4" && !strings.Contains(s.Diff, "+geodr_api_server:") {
			t.Errorf("step 4's diff:\n%s", s.Diff)
		}
		if s.ID == "8" && s.Note == "" {
			t.Error("step 8 without --proxy has no note")
		}
		// A credential of policy.json is never printed, not even the
		// one a step seals.
		for _, secret := range []string{"Adm1n-Passw0rd", "C0llect-0r"} {
			if strings.Contains(s.Diff, secret) {
				t.Errorf("step %s's diff shows a credential:\n%s", s.ID, s.Diff)
			}
		}
	}
	if diffs != 14 {
		t.Errorf("%d steps with a diff", diffs)
	}
}

func TestRefusals(t *testing.T) {
	at8101 := copySample(t)
	if _, err := Apply(options(at8101)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(at8101, StateFile))
	for name, c := range map[string]struct {
		edit func(dir string)
		o    func(o *Options)
		want string
	}{
		"not YAML": {edit: func(d string) { os.WriteFile(filepath.Join(d, "values.yaml"), []byte("rda_api_server: [\n"), 0o644) }, want: "values.yaml: yaml: line"},
		"missing":  {edit: func(d string) { os.Remove(filepath.Join(d, "nats.conf")) }, want: "no nats.conf (a deployment directory holds"},
		"disk": {o: func(o *Options) {
			o.Statfs = func(string) (Usage, error) { return Usage{Total: 100, Free: 15, Avail: 10}, nil }
		}, want: "is 90% used: the upgrade needs it below 80%"},
		"at 8.1.0.1": {o: func(o *Options) { o.Dir = at8101 }, want: "is at 8.1.0.1 already: nothing to upgrade"},
		"other from": {o: func(o *Options) { o.From = "7.9.0" }, want: "only the upgrade from 8.0.0 to 8.1.0.1 is known"},
		"no webhook": {edit: func(d string) {
			os.WriteFile(filepath.Join(d, "haproxy.cfg"), []byte("global\n    daemon\n"), 0o644)
		}, want: "step 3.5: haproxy.cfg: no webhook host"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := copySample(t)
			if c.edit != nil {
				c.edit(dir)
			}
			o := options(dir)
			if c.o != nil {
				c.o(&o)
			}
			before := sums(t, o.Dir)
			_, err := MakePlan(o)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("plan: got %v, want %q", err, c.want)
			}
			_, err = Apply(o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("apply: got %v, want %q", err, c.want)
			}
			same(t, "a refused apply", before, sums(t, o.Dir))
		})
	}
}

// TestProxyLater: step 8 done without --proxy is done again when a later
// apply gives one.
func TestProxyLater(t *testing.T) {
	dir := copySample(t)
	o := options(dir)
	if _, err := Apply(o); err != nil {
		t.Fatal(err)
	}
	o.Proxy = "http://proxy:3128"
	res, err := Apply(o)
	if err != nil || len(res.Applied) != 1 || res.Applied[0].ID != "8" {
		t.Fatalf("%+v %v", res.Applied, err)
	}
	if e := services(t, dir)["rda_worker"]["environment"].(map[string]any); e["HTTPS_PROXY"] != o.Proxy {
		t.Errorf("worker environment: %v", e)
	}
	st, _ := readState(dir)
	n := 0
	for _, r := range st.Steps {
		if r.ID == "8" {
			n++
		}
	}
	after := sums(t, dir)
	if res, err := Apply(o); err != nil || len(res.Applied) != 0 || n != 1 {
		t.Fatalf("again: %+v %v (%d records of step 8)", res.Applied, err, n)
	}
	same(t, "a third apply", after, sums(t, dir))
}

// TestRegistryVolume: the registry's data volume, when it is on this
// host, needs below 80% used and 25 GB free.
func TestRegistryVolume(t *testing.T) {
	dir := copySample(t)
	vol := t.TempDir()
	infra := strings.Replace(readFile(t, dir, deploydir.Infra), "/opt/rdaf-registry/data", vol, 1)
	if err := os.WriteFile(filepath.Join(dir, deploydir.Infra), []byte(infra), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options(dir)
	o.Statfs = func(p string) (Usage, error) {
		if p == vol {
			return Usage{Total: 100 << 30, Free: 20 << 30, Avail: 20 << 30}, nil
		}
		return Usage{Total: 100 << 30, Free: 50 << 30, Avail: 50 << 30}, nil
	}
	before := sums(t, dir)
	if _, err := Apply(o); err == nil || !strings.Contains(err.Error(), "the registry volume "+vol+" is 80% used with 20 GB free: clean old tags first") {
		t.Fatalf("got %v", err)
	}
	same(t, "a refused apply", before, sums(t, dir))
	o.Statfs = func(string) (Usage, error) { return Usage{Total: 100 << 30, Free: 60 << 30, Avail: 60 << 30}, nil }
	p, err := MakePlan(o)
	if err != nil || p.Checks[len(p.Checks)-1].Result != vol+": 60 GB free" {
		t.Fatalf("%+v %v", p.Checks, err)
	}
}
