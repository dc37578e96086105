package artifact_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go/jetstream"
)

func openRepo(t *testing.T) *artifact.Repo {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	s, err := store.Open(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	return &artifact.Repo{Store: s, Now: func() time.Time { return time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC) }}
}

const ruleset = `name: cpu-rules
description: CPU alerts
realtime-alerts:
  - name: cpu-high
    description: CPU over 90
    groupBy: host
    condition: cpu > 90 and region is 'north'
    severity: CRITICAL
    suppress-for-minutes: 10
aggregate-alerts:
  - name: cpu-avg
    condition: avg_cpu > 50
    severity: MAJOR
`

const dashboard = `name: ops
label: Operations
description: the ops board
dashboard_style: tabbed
dashboard_sections:
  - title: CPU
    widgets:
      - widget_type: shaded_chart
        title: CPU
        stream: cpu-metrics
        duration_hours: 24
`

// TestRoundTrips: each kind adds, gets (keys in their order, saved_time
// and enabled set), lists (its columns), enables and disables, and
// deletes.
func TestRoundTrips(t *testing.T) {
	r := openRepo(t)
	ctx := context.Background()
	cases := []struct {
		kind *artifact.Kind
		doc  string
		name string
		row  string
	}{
		{artifact.AlertRules, ruleset, "cpu-rules", "map[description:CPU alerts name:cpu-rules num_aggr_alert_rules:1 num_realtime_alert_rules:1 saved_time:2026-11-24T12:00:00.000000]"},
		{artifact.Dashboard, dashboard, "ops", "map[dashboard_type:dashboard description:the ops board enabled:true label:Operations name:ops saved_time:2026-11-24T12:00:00.000000]"},
		{artifact.DashGroup, `{"name": "g1", "label": "G", "dashboardList": [{"id": "1", "name": "ops"}], "users": "ann"}`, "g1",
			"map[description:<nil> enabled:true label:G name:g1 saved_time:2026-11-24T12:00:00.000000]"},
	}
	for _, c := range cases {
		rec, err := r.Add(ctx, c.kind, []byte(c.doc), false)
		if err != nil {
			t.Fatalf("%s: add: %v", c.kind.Name, err)
		}
		got, err := r.Get(ctx, c.kind, c.name)
		if err != nil {
			t.Fatalf("%s: get: %v", c.kind.Name, err)
		}
		if string(got.Doc.JSON()) != string(rec.Doc.JSON()) {
			t.Errorf("%s: got %s, want %s", c.kind.Name, got.Doc.JSON(), rec.Doc.JSON())
		}
		if keys := got.Doc.Keys(); keys[0] != "name" || keys[len(keys)-1] != "saved_time" && keys[len(keys)-1] != "enabled" {
			t.Errorf("%s: keys %v, want the document's order then saved_time", c.kind.Name, keys)
		}
		rows, err := r.Rows(ctx, c.kind)
		if err != nil || len(rows) != 1 || fmt.Sprint(rows[0]) != c.row {
			t.Errorf("%s: rows %v %v, want [%s]", c.kind.Name, rows, err, c.row)
		}
		if c.kind.Toggle {
			for _, step := range []struct {
				on      bool
				changed bool
			}{{true, false}, {false, true}, {false, false}, {true, true}} {
				changed, err := r.SetEnabled(ctx, c.kind, c.name, step.on)
				if err != nil || changed != step.changed {
					t.Errorf("%s: enable %v: changed %v %v, want %v", c.kind.Name, step.on, changed, err, step.changed)
				}
			}
		}
	}
	// The group names a dashboard, which exists; delete it last.
	for i := len(cases) - 1; i >= 0; i-- {
		c := cases[i]
		if err := r.Delete(ctx, c.kind, c.name); err != nil {
			t.Fatalf("%s: delete: %v", c.kind.Name, err)
		}
		if _, err := r.Get(ctx, c.kind, c.name); !errors.Is(err, artifact.ErrNotFound) {
			t.Errorf("%s: get after delete: %v", c.kind.Name, err)
		}
	}
}

// TestBadInput: malformed YAML names its line, a schema violation its
// field, a bad CFXQL condition its rule and column; a duplicate without
// overwrite, a missing name, and a group naming a missing dashboard are
// refused with the name.
func TestBadInput(t *testing.T) {
	r := openRepo(t)
	ctx := context.Background()
	if _, err := r.Add(ctx, artifact.Dashboard, []byte(dashboard), false); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind      *artifact.Kind
		doc, want string
	}{
		{artifact.Dashboard, "name: x\n  label: [unclosed", "malformed YAML or JSON: line 2"},
		{artifact.Dashboard, "- a\n- b\n", "the document must be a mapping"},
		{artifact.Dashboard, "", "the document is empty"},
		{artifact.Dashboard, "label: no name\n", "name"},
		{artifact.Dashboard, "name: x\nenabled: maybe\n", "enabled"},
		{artifact.Dashboard, "name: x\ndashboard_sections:\n  - widgets:\n      - title: no type\n", "widget_type"},
		{artifact.Dashboard, dashboard, `dashboard "ops" exists already (--overwrite replaces it)`},
		{artifact.AlertRules, strings.Replace(ruleset, "severity: CRITICAL", "severity: LOUD", 1), "severity"},
		{artifact.AlertRules, strings.Replace(ruleset, "suppress-for-minutes: 10", "suppress-for-minutes: soon", 1), "suppress-for-minutes"},
		{artifact.AlertRules, strings.Replace(ruleset, "cpu > 90 and region is 'north'", "cpu >> 90", 1), "realtime-alerts[0] (cpu-high): condition: col 6"},
		{artifact.DashGroup, `{"name": "g", "dashboardList": [{"name": "ops"}, {"name": "nope"}]}`, `dashboardList[1]: no dashboard named "nope"`},
	}
	for _, c := range cases {
		_, err := r.Add(ctx, c.kind, []byte(c.doc), false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want an error with %q", c.kind.Name, c.doc, err, c.want)
		}
	}
	if _, err := r.Get(ctx, artifact.Dashboard, "nope"); err == nil || err.Error() != `no dashboard named "nope"` || !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("get missing: %v", err)
	}
	if err := r.Delete(ctx, artifact.AlertRules, "nope"); !errors.Is(err, artifact.ErrNotFound) {
		t.Errorf("delete missing: %v", err)
	}
}

// TestAddSaysReplaced: an add that replaced a record of its name says so
// (the command prints "replaced", not "added"); one that created it, or
// re-created it after a delete, does not.
func TestAddSaysReplaced(t *testing.T) {
	r := openRepo(t)
	ctx := context.Background()
	for i, want := range []bool{false, true, true} {
		rec, err := r.Add(ctx, artifact.Dashboard, []byte(dashboard), true)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Replaced != want {
			t.Errorf("add %d: replaced %v, want %v", i+1, rec.Replaced, want)
		}
	}
	if err := r.Delete(ctx, artifact.Dashboard, "ops"); err != nil {
		t.Fatal(err)
	}
	if rec, err := r.Add(ctx, artifact.Dashboard, []byte(dashboard), true); err != nil || rec.Replaced {
		t.Errorf("add after delete: replaced %v, %v", rec.Replaced, err)
	}
}

// TestConcurrentOverwrite: adds racing for one name with --overwrite
// never both win over one revision: every success replaced the revision
// it read (the history holds one revision per winner, none lost), the
// others say so, and the record reads.
func TestConcurrentOverwrite(t *testing.T) {
	r := openRepo(t)
	ctx := context.Background()
	if _, err := r.Add(ctx, artifact.Dashboard, []byte(dashboard), false); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc := strings.Replace(dashboard, "label: Operations", fmt.Sprintf("label: writer-%d", i), 1)
			_, errs[i] = r.Add(ctx, artifact.Dashboard, []byte(doc), true)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else if !strings.Contains(err.Error(), "changed by someone else meanwhile") {
			t.Errorf("a loser's error: %v", err)
		}
	}
	rec, err := r.Get(ctx, artifact.Dashboard, "ops")
	if err != nil {
		t.Fatal(err)
	}
	label, _ := rec.Doc.String("label")
	if won < 1 || !strings.HasPrefix(label, "writer-") {
		t.Fatalf("%d winners, label %q", won, label)
	}
	kv, err := r.Store.KV(ctx, jetstream.KeyValueConfig{Bucket: artifact.Dashboard.Bucket})
	if err != nil {
		t.Fatal(err)
	}
	hist, err := kv.History(ctx, "ops")
	if err != nil || len(hist) != 1+won {
		t.Fatalf("history of %d revisions (%v), want the first add and %d winners", len(hist), err, won)
	}
	t.Logf("%d of %d overwrites won, each over the revision it read", won, n)
}

// BenchmarkAddGet: the dashboard of testdata/dashboard.yaml added and read
// back (bench/artifacts.sh measures the same through the Starlark module,
// against raw KV).
func BenchmarkAddGet(b *testing.B) {
	r := openRepo(&testing.T{})
	ctx := context.Background()
	text, err := os.ReadFile("testdata/dashboard.yaml")
	if err != nil {
		b.Fatal(err)
	}
	doc := strings.Replace(string(text), "name: NAME", "name: d%d", 1)
	b.ResetTimer()
	for i := range b.N {
		name := fmt.Sprintf("d%d", i)
		if _, err := r.Add(ctx, artifact.Dashboard, []byte(fmt.Sprintf(doc, i)), false); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Get(ctx, artifact.Dashboard, name); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEditAtRevision: an edit is stored at the revision it read and gives
// the next; an edit at a revision someone else moved past stores nothing.
func TestEditAtRevision(t *testing.T) {
	r := openRepo(t)
	ctx := context.Background()
	if _, err := r.Add(ctx, artifact.Dashboard, []byte("name: ops\nlabel: one\n"), false); err != nil {
		t.Fatal(err)
	}
	got, err := r.Get(ctx, artifact.Dashboard, "ops")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := r.Edit(ctx, artifact.Dashboard, "ops", []byte("name: ops\nlabel: two\n"), got.Revision)
	if err != nil || rev <= got.Revision {
		t.Fatalf("edit: revision %d, %v", rev, err)
	}
	if _, err := r.Edit(ctx, artifact.Dashboard, "ops", []byte("name: ops\nlabel: stale\n"), got.Revision); err == nil || !strings.Contains(err.Error(), "changed by someone else") {
		t.Fatalf("a stale edit: %v", err)
	}
	now, _ := r.Get(ctx, artifact.Dashboard, "ops")
	if label, _ := now.Doc.String("label"); label != "two" || now.Revision != rev {
		t.Errorf("after a stale edit: label %q at %d, want two at %d", label, now.Revision, rev)
	}
}

// TestSchemaMessageNumbers: numbers a rule compares are printed as a user
// writes them (the schema library prints 5/1 and 100.000000), while the
// text around them, an address such as 127.0.0.1 included, is untouched.
func TestSchemaMessageNumbers(t *testing.T) {
	r := openRepo(t)
	ctx := context.Background()
	cases := []struct {
		kind      *artifact.Kind
		doc, want string
	}{
		{artifact.AlertRules, strings.Replace(ruleset, "severity: CRITICAL", "severity: 127.0.0.1", 1),
			"127.0.0.1 does not equal any of"},
		{artifact.AlertRules, strings.Replace(ruleset, "severity: CRITICAL", "severity: v2.0.0", 1),
			"v2.0.0 does not equal any of"},
		{artifact.AlertRules, strings.Replace(ruleset, "suppress-for-minutes: 10", "suppress-for-minutes: -1", 1),
			"suppress-for-minutes: -1 is less than 0"},
		{artifact.SiteProfile, "name: p\nsites: [a]\nmax_cpu_percent: 100.5\n",
			"invalid site profile: max_cpu_percent: 100.5 is greater than 100"},
		{artifact.SiteProfile, "name: p\nsites: [a]\nmax_cpu_percent: 250\n",
			"invalid site profile: max_cpu_percent: 250 is greater than 100"},
	}
	for _, c := range cases {
		_, err := r.Add(ctx, c.kind, []byte(c.doc), false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want an error with %q", c.kind.Name, c.doc, err, c.want)
		}
	}
}
