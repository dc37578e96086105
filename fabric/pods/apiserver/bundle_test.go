package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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

// testFile is a file of a test bundle, to stage.
type testFile struct {
	Type, Path string
	Data       []byte
}

// bundleFiles are the files of the test bundle.
func bundleFiles() []testFile {
	return []testFile{
		{Type: api.BundlePipeline, Path: "pipelines/alerts.pipeline", Data: []byte(bundleAlerts)},
		{Type: api.BundlePipeline, Path: "pipelines/report.yaml", Data: []byte(bundleReport)},
		{Type: api.BundleBlueprint, Path: "blueprints/syslog.yaml", Data: []byte(bundleSyslog)},
		{Type: api.BundleBlueprint, Path: "deployments/small.json", Data: []byte(bundleSmall)},
		{Type: api.BundleDashboard, Path: "dashboards/ops.yaml", Data: []byte(bundleOps)},
	}
}

// stage stages files in the tenant's object store, as the client does,
// and returns them as a request names them.
func stage(t *testing.T, data *tenant.Data, files []testFile) []api.BundleFile {
	t.Helper()
	st, err := data.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	folder := api.BundleStagePrefix + tenant.NewToken() + "/"
	out := make([]api.BundleFile, len(files))
	for i, f := range files {
		out[i] = api.BundleFile{Type: f.Type, Path: f.Path, Blob: folder + strconv.Itoa(i), Size: int64(len(f.Data))}
		if _, err := st.PutBlob(context.Background(), out[i].Blob, bytes.NewReader(f.Data)); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// deploy stages files and sends req naming them to the api-server, as
// the client does, and returns its rows or its error. The api-server
// must have deleted the staged files when it answers.
func deploy(t *testing.T, nc *nats.Conn, data *tenant.Data, files []testFile, req api.BundleDeployRequest) ([]api.BundleRow, error) {
	t.Helper()
	req.Files = stage(t, data, files)
	return send(t, nc, data, req)
}

// send sends req to the api-server and returns its rows or its error,
// checking that no staged file is left.
func send(t *testing.T, nc *nats.Conn, data *tenant.Data, req api.BundleDeployRequest) ([]api.BundleRow, error) {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := nc.Request(api.SubjectBundleDeploy, body, api.BundleWait)
	if err != nil {
		return nil, err
	}
	if left := staged(t, data); len(left) > 0 {
		t.Errorf("staged files left after the api-server answered: %v", left)
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

// staged lists the staged files of the tenant's object store.
func staged(t *testing.T, data *tenant.Data) []string {
	t.Helper()
	st, err := data.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := st.Blobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range blobs {
		if strings.HasPrefix(b, api.BundleStagePrefix) {
			out = append(out, b)
		}
	}
	return out
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
	if _, err := deploy(t, nc, data, bundleFiles(), api.BundleDeployRequest{}); err != nil {
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
		testFile{Type: api.BundleBlueprint, Path: "blueprints/extra.yaml", Data: []byte("id: extra\nname: Extra\nservice_pipelines:\n  - {name: report}\n")},
		testFile{Type: api.BundleDashboard, Path: "dashboards/fresh.yaml", Data: []byte("name: fresh\n")})
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
	_, err = deploy(t, nc, data, files, api.BundleDeployRequest{})
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
	rows, err := deploy(t, nc, data, bundleFiles(), api.BundleDeployRequest{Compare: true})
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

// TestBundleDeployLimits: the api-server reads a bundle's files from
// where the client staged them, so a bundle of several MB deploys; a
// request with more than api.MaxBundleFiles files, a file over
// api.MaxBundleFile bytes (as the request says, or as staged) or more
// than api.MaxBundleSize in all is refused with one line naming the
// limit, before the file is read, and writes nothing (one at the limit
// is taken); an unknown type of file or artifact and a path outside the
// staging folder are refused; a bad request is answered with an error.
// Whatever the outcome, the staged files are deleted (send checks), and
// no other blob.
func TestBundleDeployLimits(t *testing.T) {
	nc, data, repo := start(t)
	ctx := context.Background()
	st, err := data.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var files []testFile
	for i := 0; i <= api.MaxBundleFiles; i++ {
		files = append(files, testFile{Type: api.BundleDashboard, Path: fmt.Sprintf("dashboards/d%d.yaml", i), Data: []byte(fmt.Sprintf("name: d%d\n", i))})
	}
	_, err = deploy(t, nc, data, files, api.BundleDeployRequest{})
	want := fmt.Sprintf("%d files in the bundle, more than the %d a deployment takes: deploy it as smaller bundles", api.MaxBundleFiles+1, api.MaxBundleFiles)
	if err == nil || err.Error() != want {
		t.Fatalf("deploy of %d files: %v, want %q", len(files), err, want)
	}
	if _, err := repo.Get(ctx, artifact.Dashboard, "d0"); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("dashboard d0 after the refused deployment: %v, want none", err)
	}
	// At the limit, it deploys.
	start := time.Now()
	rows, err := deploy(t, nc, data, files[:api.MaxBundleFiles], api.BundleDeployRequest{Compare: true})
	if err != nil || len(rows) != api.MaxBundleFiles {
		t.Fatalf("compare of %d files: %d rows, %v", api.MaxBundleFiles, len(rows), err)
	}
	t.Logf("staged and compared %d files in %s", len(rows), time.Since(start))

	// Several MB: more than a message of the fabric holds, each document
	// less than a record.
	var several []testFile
	var total int
	for i := range 6 {
		body := fmt.Sprintf("name: big%d\ndescription: %s\n", i, strings.Repeat("x", int(nc.MaxPayload())*8/10))
		total += len(body)
		several = append(several, testFile{Type: api.BundleDashboard, Path: fmt.Sprintf("dashboards/big%d.yaml", i), Data: []byte(body)})
	}
	rows, err = deploy(t, nc, data, several, api.BundleDeployRequest{})
	if err != nil || len(rows) != len(several) {
		t.Fatalf("deploy of %d bytes: %+v, %v", total, rows, err)
	}
	if int64(total) < 4*nc.MaxPayload() {
		t.Fatalf("the bundle holds %d bytes, want several MB", total)
	}
	if got, err := repo.GetJSON(ctx, artifact.Dashboard, "big5"); err != nil || len(got) < int(nc.MaxPayload())*8/10 {
		t.Errorf("dashboard big5: %d bytes, %v", len(got), err)
	}

	// A file over the limit, as the request says it and as it is staged
	// (a request that says less): refused before it is read.
	huge := bytes.Repeat([]byte("x"), api.MaxBundleFile+1)
	wantHuge := fmt.Sprintf("dashboards/huge.yaml: %d bytes, more than the 16 MiB a bundle file may hold", len(huge))
	hugeFiles := []testFile{{Type: api.BundleDashboard, Path: "dashboards/ok.yaml", Data: []byte("name: ok\n")}, {Type: api.BundleDashboard, Path: "dashboards/huge.yaml", Data: huge}}
	if _, err := deploy(t, nc, data, hugeFiles, api.BundleDeployRequest{}); err == nil || err.Error() != wantHuge {
		t.Errorf("deploy of a file of %d bytes: %v, want %q", len(huge), err, wantHuge)
	}
	req := api.BundleDeployRequest{Files: stage(t, data, hugeFiles)}
	req.Files[1].Size = 10
	if _, err := send(t, nc, data, req); err == nil || err.Error() != wantHuge {
		t.Errorf("deploy of a file of %d bytes said to be 10: %v, want %q", len(huge), err, wantHuge)
	}
	// More than the bundle's limit in all, as the request says: refused
	// before anything is read.
	var fat []testFile
	for i := 0; i*api.MaxBundleFile <= api.MaxBundleSize; i++ {
		fat = append(fat, testFile{Type: api.BundleDashboard, Path: fmt.Sprintf("dashboards/f%02d.yaml", i), Data: []byte("name: f\n")})
	}
	req = api.BundleDeployRequest{Files: stage(t, data, fat)}
	for i := range req.Files {
		req.Files[i].Size = api.MaxBundleFile
	}
	wantFat := fmt.Sprintf("dashboards/f%02d.yaml: the bundle's files hold more than 256 MiB", len(fat)-1)
	if _, err := send(t, nc, data, req); err == nil || err.Error() != wantFat {
		t.Errorf("deploy of %d files of 16 MiB: %v, want %q", len(fat), err, wantFat)
	}
	for _, name := range []string{"ok", "huge", "f00"} {
		if _, err := repo.Get(ctx, artifact.Dashboard, name); !errors.Is(err, artifact.ErrNotFound) {
			t.Errorf("dashboard %s after the refused deployments: %v, want none", name, err)
		}
	}

	// A blob elsewhere is neither read nor deleted.
	if _, err := st.PutBlob(ctx, "docs/keep.yaml", strings.NewReader("name: keep\n")); err != nil {
		t.Fatal(err)
	}
	elsewhere := api.BundleDeployRequest{Files: []api.BundleFile{{Type: api.BundleDashboard, Path: "dashboards/keep.yaml", Blob: "docs/keep.yaml", Size: 11}}}
	if _, err := send(t, nc, data, elsewhere); err == nil || err.Error() != `dashboards/keep.yaml: "docs/keep.yaml" is not where a bundle's file is staged (a path under _bundles/)` {
		t.Errorf("deploy of a blob outside the staging folder: %v", err)
	}
	if _, err := st.BlobSize(ctx, "docs/keep.yaml"); err != nil {
		t.Errorf("the blob outside the staging folder after the deployment: %v, want it kept", err)
	}

	for _, c := range []struct {
		files []testFile
		types []string
		want  string
	}{
		{bundleFiles(), []string{"macro"}, `no artifact type "macro" (want pipeline, blueprint or dashboard)`},
		{[]testFile{{Type: "macro", Path: "macros/m.yaml"}}, nil, `macros/m.yaml: no artifact type "macro" (want pipeline, blueprint or dashboard)`},
	} {
		if _, err := deploy(t, nc, data, c.files, api.BundleDeployRequest{Types: c.types}); err == nil || err.Error() != c.want {
			t.Errorf("deploy %+v: %v, want %q", c.types, err, c.want)
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
