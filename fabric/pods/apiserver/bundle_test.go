package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/apiserver"
	"github.com/nats-io/nats.go"
)

// The documents of the test bundle.
const (
	bundleAlerts = "@dm:read-stream name = 'events' --> *dm:filter severity is 'err' --> @dm:write-stream name = 'alerts'\n"
	bundleReport = `name: report
description: the last alerts
data:
  sequence:
    - tag: "@dm:recall"
      query: name = 'last-alerts'
    - tag: "@dm:head"
      query: n = 10
`
	bundleSyslog = `id: syslog-service
name: Syslog alerting
category: ingestion
description: Keeps the severe events in an alerts stream
service_pipelines:
  - name: alerts
    label: alerts
    version: "*"
    site: loc.*
action_pipelines:
  - name: report
    label: on-demand
`
	bundleSmall = `{"id": "small", "name": "Small", "enabled": false, "service_pipelines": [{"name": "report"}]}`
	bundleOps   = `name: ops
label: Operations
description: the alerts of the day
dashboard_sections:
  - title: Alerts
    widgets:
      - {widget_type: table, title: Last alerts, stream: alerts}
`
)

// bundleFiles are the files of the test bundle.
func bundleFiles() []api.BundleFile {
	return []api.BundleFile{
		{Type: api.BundlePipeline, Path: "pipelines/alerts.pipeline", Data: []byte(bundleAlerts)},
		{Type: api.BundlePipeline, Path: "pipelines/report.yaml", Data: []byte(bundleReport)},
		{Type: api.BundleBlueprint, Path: "blueprints/syslog.yaml", Data: []byte(bundleSyslog)},
		{Type: api.BundleBlueprint, Path: "deployments/small.json", Data: []byte(bundleSmall)},
		{Type: api.BundleDashboard, Path: "dashboards/ops.yaml", Data: []byte(bundleOps)},
	}
}

// deploy sends req to the api-server, as the client does, and returns
// its rows or its error.
func deploy(t *testing.T, nc *nats.Conn, req api.BundleDeployRequest) ([]api.BundleRow, error) {
	t.Helper()
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := nc.Request(api.SubjectBundleDeploy, data, api.BundleWait)
	if err != nil {
		return nil, err
	}
	var e api.Error
	if json.Unmarshal(msg.Data, &e) == nil && e.Error != "" {
		return nil, errors.New(e.Error)
	}
	var rows []api.BundleRow
	if err := json.Unmarshal(msg.Data, &rows); err != nil {
		t.Fatalf("bad answer %s: %v", msg.Data, err)
	}
	return rows, nil
}

// start starts a fabric with an api-server and connects to its tenant.
func start(t *testing.T) (*nats.Conn, *tenant.Data, *artifact.Repo) {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "apiserver-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	data := tenant.New(nc)
	st, err := data.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return nc, data, &artifact.Repo{Store: st}
}

// TestBundleDeployUndo: a deployment that fails after some writes undoes
// them in the api-server: the pipeline version it added is deleted, its
// new blueprint and dashboard are gone, and the blueprint and dashboard
// it replaced are as they were (the blueprint enabled again), so that
// the bundle compares unchanged with the tenant afterwards.
func TestBundleDeployUndo(t *testing.T) {
	nc, data, repo := start(t)
	ctx := context.Background()
	if _, err := deploy(t, nc, api.BundleDeployRequest{Files: bundleFiles()}); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	var err error
	for _, k := range []struct {
		kind *artifact.Kind
		name string
	}{{artifact.Deployment, "syslog-service"}, {artifact.Dashboard, "ops"}} {
		if before[k.name], err = repo.GetJSON(ctx, k.kind, k.name); err != nil {
			t.Fatal(err)
		}
	}

	files := bundleFiles()
	files[1].Data = []byte(strings.Replace(bundleReport, "n = 10", "n = 20", 1))
	files[2].Data = []byte(strings.Replace(bundleSyslog, "Keeps the severe", "Keeps all the severe", 1))
	files[4].Data = []byte(strings.Replace(bundleOps, "label: Operations", "label: Changed", 1))
	files = append(files,
		api.BundleFile{Type: api.BundleBlueprint, Path: "blueprints/extra.yaml", Data: []byte("id: extra\nname: Extra\nservice_pipelines:\n  - {name: report}\n")},
		api.BundleFile{Type: api.BundleDashboard, Path: "dashboards/fresh.yaml", Data: []byte("name: fresh\n")})
	var mu sync.Mutex
	var written []string
	apiserver.SetWrittenHook(t, func(r api.BundleRow) error {
		mu.Lock()
		defer mu.Unlock()
		written = append(written, r.Type+" "+r.Name)
		if r.Type == api.BundleDashboard && r.Name == "ops" {
			return errors.New("injected failure")
		}
		return nil
	})
	_, err = deploy(t, nc, api.BundleDeployRequest{Files: files})
	if err == nil || !strings.Contains(err.Error(), "dashboards/ops.yaml: injected failure") || !strings.Contains(err.Error(), "undone") {
		t.Fatalf("deploy: %v, want the injected failure, undone", err)
	}
	mu.Lock()
	got := strings.Join(written, ", ")
	mu.Unlock()
	if want := "pipeline report, blueprint Extra, blueprint Syslog alerting, dashboard fresh, dashboard ops"; got != want {
		t.Fatalf("written %q, want %q", got, want)
	}
	if vs, err := data.PipelineVersions(ctx, "report"); err != nil || len(vs) != 1 {
		t.Errorf("report has versions %v (%v), want its first only", vs, err)
	}
	for name, doc := range before {
		kind := artifact.Dashboard
		if name == "syslog-service" {
			kind = artifact.Deployment
		}
		if got, err := repo.GetJSON(ctx, kind, name); err != nil || !bytes.Equal(got, doc) {
			t.Errorf("%s after the undo: %s (%v), want %s", name, got, err, doc)
		}
	}
	if _, err := repo.Get(ctx, artifact.Deployment, "extra"); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("the new blueprint extra: %v, want it deleted", err)
	}
	if _, err := repo.Get(ctx, artifact.Dashboard, "fresh"); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("the new dashboard fresh: %v, want it deleted", err)
	}
	rows, err := deploy(t, nc, api.BundleDeployRequest{Files: bundleFiles(), Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Errorf("compared %d rows, want 5: %+v", len(rows), rows)
	}
	for _, r := range rows {
		if r.Change != api.ChangeUnchanged {
			t.Errorf("%s %s is %s after the undo, want unchanged", r.Type, r.Name, r.Change)
		}
	}
}

// TestBundleDeployLimits: a request with more than api.MaxBundleFiles
// files is refused with one line naming the limit, and writes nothing
// (one at the limit is taken); a request over the fabric's message limit
// never reaches the api-server (NATS refuses it); an unknown type of file
// or artifact is refused; a bad request is answered with an error.
func TestBundleDeployLimits(t *testing.T) {
	nc, data, repo := start(t)
	ctx := context.Background()
	var files []api.BundleFile
	for i := 0; i <= api.MaxBundleFiles; i++ {
		files = append(files, api.BundleFile{Type: api.BundleDashboard, Path: fmt.Sprintf("dashboards/d%d.yaml", i), Data: []byte(fmt.Sprintf("name: d%d\n", i))})
	}
	_, err := deploy(t, nc, api.BundleDeployRequest{Files: files})
	want := fmt.Sprintf("%d files in the bundle, more than the %d a deployment takes: deploy it as smaller bundles", api.MaxBundleFiles+1, api.MaxBundleFiles)
	if err == nil || err.Error() != want {
		t.Fatalf("deploy of %d files: %v, want %q", len(files), err, want)
	}
	if _, err := repo.Get(ctx, artifact.Dashboard, "d0"); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("dashboard d0 after the refused deployment: %v, want none", err)
	}
	// At the limit, it deploys.
	start := time.Now()
	rows, err := deploy(t, nc, api.BundleDeployRequest{Files: files[:api.MaxBundleFiles], Compare: true})
	if err != nil || len(rows) != api.MaxBundleFiles {
		t.Fatalf("compare of %d files: %d rows, %v", api.MaxBundleFiles, len(rows), err)
	}
	t.Logf("compared %d files in %s", len(rows), time.Since(start))

	big := []api.BundleFile{{Type: api.BundleDashboard, Path: "dashboards/big.yaml", Data: bytes.Repeat([]byte("x"), int(nc.MaxPayload()))}}
	if _, err := deploy(t, nc, api.BundleDeployRequest{Files: big}); !errors.Is(err, nats.ErrMaxPayload) {
		t.Errorf("a request over the message limit: %v, want %v", err, nats.ErrMaxPayload)
	}

	for _, c := range []struct {
		req  api.BundleDeployRequest
		want string
	}{
		{api.BundleDeployRequest{Files: bundleFiles(), Types: []string{"macro"}}, `no artifact type "macro" (want pipeline, blueprint or dashboard)`},
		{api.BundleDeployRequest{Files: []api.BundleFile{{Type: "macro", Path: "macros/m.yaml"}}}, `macros/m.yaml: no artifact type "macro" (want pipeline, blueprint or dashboard)`},
	} {
		if _, err := deploy(t, nc, c.req); err == nil || err.Error() != c.want {
			t.Errorf("deploy %+v: %v, want %q", c.req.Types, err, c.want)
		}
	}
	msg, err := nc.Request(api.SubjectBundleDeploy, []byte("{not json"), 5*time.Second)
	if err != nil || !strings.Contains(string(msg.Data), "bad bundle-deploy request") {
		t.Errorf("a bad request: %v %s, want an error", err, msg.Data)
	}
	if ps, err := data.Pipelines(ctx); err != nil || len(ps) != 0 {
		t.Errorf("pipelines after the refused deployments: %v (%v), want none", ps, err)
	}
}
