package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/packs"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/pack"
	"github.com/fabricops/fabric/fabric/pods/apiserver"
	"github.com/nats-io/nats.go"
)

// packEnv is a tenant with an api-server, reached as the client does.
type packEnv struct {
	nc   *nats.Conn
	data *tenant.Data
	st   *store.Store
	cat  *packs.Catalog
}

func startPacks(t *testing.T) *packEnv {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "packs-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	data := tenant.New(nc)
	st, err := data.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &packEnv{nc: nc, data: data, st: st, cat: &packs.Catalog{Store: st}}
}

// upload writes a pack of the manifest and files and uploads it.
func (e *packEnv) upload(t *testing.T, m pack.Manifest, files map[string]string) {
	t.Helper()
	fs := map[string][]byte{}
	for k, v := range files {
		fs[k] = []byte(v)
	}
	path := filepath.Join(t.TempDir(), m.Name+".tar.gz")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pack.Write(out, m, fs); err != nil {
		t.Fatal(err)
	}
	out.Close()
	if _, err := e.cat.Upload(context.Background(), path); err != nil {
		t.Fatal(err)
	}
}

// request sends a pack request to the api-server.
func (e *packEnv) request(t *testing.T, subject string, req api.PackRequest) ([]api.PackRow, error) {
	t.Helper()
	body, _ := json.Marshal(req)
	msg, err := e.nc.Request(subject, body, api.PackTimeout)
	if err != nil {
		t.Fatal(err)
	}
	var errAns api.Error
	if json.Unmarshal(msg.Data, &errAns) == nil && errAns.Error != "" {
		return nil, errors.New(errAns.Error)
	}
	var res api.PackResult
	if err := json.Unmarshal(msg.Data, &res); err != nil {
		t.Fatal(err)
	}
	return res.Rows, nil
}

// snapshot is what the tenant has of every kind the test packs write.
func (e *packEnv) snapshot(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	var parts []string
	ps, err := e.data.Pipelines(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		parts = append(parts, "pipeline "+p.Name+" "+p.Version)
	}
	r := &artifact.Repo{Store: e.st}
	for _, k := range []*artifact.Kind{artifact.Dashboard, artifact.Deployment, artifact.DashGroup} {
		recs, err := r.List(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			parts = append(parts, k.Name+" "+string(rec.Doc.JSON()))
		}
	}
	infos, err := (&secret.Store{Store: e.st}).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range infos {
		parts = append(parts, "secret "+i.Name)
	}
	ss, err := streams.List(ctx, e.st.JetStream())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if !s.System {
			parts = append(parts, "stream "+s.Name)
		}
	}
	acts, err := e.cat.Activations(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		parts = append(parts, "activation "+a.Name+" "+a.Scope+" "+a.State)
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// opsPack is a pack of a stream, a credential, a pipeline, a blueprint
// running it, a dashboard and a group of it.
func opsPack(version string) (pack.Manifest, map[string]string) {
	m := pack.Manifest{Name: "ops", Version: version,
		CommonVars: []pack.Var{{Name: "token", Secret: true}},
		Artifacts: []pack.Artifact{
			{Type: pack.TypeStream, Name: "ops-events", File: "streams/events.yaml"},
			{Type: pack.TypeCredential, Name: "ops-token", File: "credentials/token.yaml"},
			{Type: pack.TypePipeline, Name: "ops-count", File: "pipelines/ops-count.pipeline"},
			{Type: pack.TypeBlueprint, Name: "ops-svc", File: "blueprints/svc.yaml"},
			{Type: pack.TypeDashboard, Name: "ops-board", File: "dashboards/board.yaml"},
			{Type: pack.TypeDashGroup, Name: "ops-group", File: "dashboards/group.yaml"},
		}}
	for i := range m.Artifacts {
		m.Artifacts[i].Scope, m.Artifacts[i].CreationPolicy = pack.ScopeCommon, pack.PolicyFail
	}
	return m, map[string]string{
		"streams/events.yaml":          "name: ops-events\n",
		"credentials/token.yaml":       "name: ops-token\nvalue: \"{{ token }}\"\n",
		"pipelines/ops-count.pipeline": "@dm:empty\n",
		"blueprints/svc.yaml":          "id: ops-svc\nname: Ops\nenabled: false\nscheduled_pipelines:\n  - {name: ops-count, label: hourly, cron_expression: '0 * * * *'}\n",
		"dashboards/board.yaml":        "name: ops-board\nlabel: Ops\n",
		"dashboards/group.yaml":        "name: ops-group\ndashboardList:\n  - {name: ops-board}\n",
	}
}

// TestPackActivationIsAllOrNothing: an activation whose second artifact
// fails to write, and one whose blueprint names a pipeline that is not
// there, leave the tenant as it was and name the artifact; the pack
// activates afterwards (no lock is left), and its dashboard group and
// blueprint name artifacts of the same pack, checked before any write.
func TestPackActivationIsAllOrNothing(t *testing.T) {
	e := startPacks(t)
	m, files := opsPack("1.0.0")
	e.upload(t, m, files)
	bad, badFiles := opsPack("2.0.0")
	badFiles["blueprints/svc.yaml"] = strings.Replace(badFiles["blueprints/svc.yaml"], "name: ops-count", "name: ops-missing", 1)
	e.upload(t, bad, badFiles)
	before := e.snapshot(t)
	req := api.PackRequest{Name: "ops", Version: "1.0.0", Scope: pack.ScopeCommon, Inputs: map[string]any{"token": "t0k"}}

	n := 0
	apiserver.SetPackWrittenHook(t, func(c api.PackCreated) error {
		if n++; n == 2 {
			return fmt.Errorf("the disk is full")
		}
		return nil
	})
	_, err := e.request(t, api.SubjectPackActivate, req)
	if err == nil || !strings.Contains(err.Error(), "credential ops-token (credentials/token.yaml): the disk is full") || !strings.Contains(err.Error(), "nothing of it is deployed") {
		t.Fatalf("activation failing at its second write: %v", err)
	}
	if after := e.snapshot(t); after != before {
		t.Fatalf("after a failed activation the tenant has\n%s\nwant\n%s", after, before)
	}
	apiserver.SetPackWrittenHook(t, func(api.PackCreated) error { return nil })

	_, err = e.request(t, api.SubjectPackActivate, api.PackRequest{Name: "ops", Version: "2.0.0", Scope: pack.ScopeCommon, Inputs: map[string]any{"token": "x"}})
	if err == nil || !strings.Contains(err.Error(), `blueprint ops-svc (blueprints/svc.yaml): invalid deployment: scheduled_pipelines[0]: no pipeline named "ops-missing"`) {
		t.Fatalf("activation of a pack with a bad blueprint: %v", err)
	}
	if after := e.snapshot(t); after != before {
		t.Fatalf("after a refused activation the tenant has\n%s\nwant\n%s", after, before)
	}

	rows, err := e.request(t, api.SubjectPackActivate, req)
	if err != nil || len(rows) != 6 || rows[2].PipelineVersion == "" || rows[3].BlueprintID != "ops-svc" {
		t.Fatalf("activation: %v %+v", err, rows)
	}
	value, err := (&secret.Store{Store: e.st}).Reveal(context.Background(), "ops-token")
	if err != nil || string(value) != "t0k" {
		t.Errorf("the credential's value: %q %v", value, err)
	}
	if _, err := e.request(t, api.SubjectPackDeactivate, req); err != nil {
		t.Fatal(err)
	}
	if after := e.snapshot(t); after != before {
		t.Fatalf("after deactivation the tenant has\n%s\nwant\n%s", after, before)
	}
}

// TestPackActivationsRace: of activations of one pack at once, exactly
// one deploys it; the others are refused and undo nothing of its.
func TestPackActivationsRace(t *testing.T) {
	e := startPacks(t)
	m, files := opsPack("1.0.0")
	e.upload(t, m, files)
	// Two api-servers would answer at once: one api-server answers one
	// request at a time, so the requests go to the activator directly
	// too, from several goroutines.
	a := &packs.Activator{Catalog: e.cat, Targets: packs.NewTargets(packs.Env{Data: e.data, Store: e.st}), Secrets: &secret.Store{Store: e.st}}
	req := api.PackRequest{Name: "ops", Version: "1.0.0", Scope: pack.ScopeCommon, Inputs: map[string]any{"token": "t"}}
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				_, errs[i] = e.request(t, api.SubjectPackActivate, req)
				return
			}
			_, errs[i] = a.Activate(context.Background(), req)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !strings.Contains(err.Error(), "under way") && !strings.Contains(err.Error(), "activated already"):
			t.Errorf("a refused activation: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d activations won: %v", won, errs)
	}
	acts, _ := e.cat.Activations(context.Background(), "ops")
	if len(acts) != 1 || acts[0].State != api.PackActivated || len(acts[0].Created) != 6 {
		t.Fatalf("activation records: %+v", acts)
	}
}

// TestPackForceDeactivation: an activation its api-server left half-way
// is taken back only with force, and then only what is still as it wrote
// it: a dashboard a user changed meanwhile stays.
func TestPackForceDeactivation(t *testing.T) {
	e := startPacks(t)
	m, files := opsPack("1.0.0")
	e.upload(t, m, files)
	req := api.PackRequest{Name: "ops", Version: "1.0.0", Scope: pack.ScopeCommon, Inputs: map[string]any{"token": "t"}}
	if _, err := e.request(t, api.SubjectPackActivate, req); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The api-server stopped before it marked the activation done.
	key := store.Key("ops#common#")
	var act api.PackActivation
	if _, err := e.st.Get(ctx, api.PackActivationsBucket, key, &act); err != nil {
		t.Fatal(err)
	}
	act.State = api.PackActivating
	for i := range act.Created {
		act.Created[i].Version = "" // planned, not yet written
	}
	if err := e.st.Put(ctx, api.PackActivationsBucket, key, act, 0); err != nil {
		t.Fatal(err)
	}
	r := &artifact.Repo{Store: e.st}
	if _, err := r.Add(ctx, artifact.Dashboard, []byte("name: ops-board\nlabel: Mine now\n"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.request(t, api.SubjectPackDeactivate, req); err == nil || !strings.Contains(err.Error(), "only partly deployed") {
		t.Fatalf("deactivation without force: %v", err)
	}
	if _, err := e.request(t, api.SubjectPackActivate, req); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("activation over a half-way one: %v", err)
	}
	req.Force = true
	rows, err := e.request(t, api.SubjectPackDeactivate, req)
	if err != nil {
		t.Fatal(err)
	}
	var removed []string
	for _, row := range rows {
		removed = append(removed, row.Type+" "+row.Name)
	}
	if want := "dashboard_group ops-group,blueprint ops-svc,pipeline ops-count,credential ops-token,stream ops-events"; strings.Join(removed, ",") != want {
		t.Errorf("removed %v, want %s", removed, want)
	}
	if rec, err := r.Get(ctx, artifact.Dashboard, "ops-board"); err != nil || !strings.Contains(string(rec.Doc.JSON()), "Mine now") {
		t.Errorf("the user's dashboard: %v", err)
	}
	if ps, _ := e.data.Pipelines(ctx); len(ps) != 0 {
		t.Errorf("pipelines left: %+v", ps)
	}
}
