package dashboards_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/dashboards"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/nats-io/nats.go/jetstream"
)

// TestVerifyStreams: a widget reading a persistent stream finds it, and
// its columns are checked against the stream's last message; an empty
// stream cannot tell, so no column is missing.
func TestVerifyStreams(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alarms", "empty stream"} {
		if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: store.StreamName(name), Subjects: []string{"ps." + store.Key(name)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := js.Publish(ctx, "ps.alarms", []byte(`{"id": 1, "severity": "MAJOR", "host": "a"}`)); err != nil {
		t.Fatal(err)
	}
	data := tenant.New(nc)
	st, err := data.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ds := &dashboards.Dashboards{Repo: &artifact.Repo{Store: st}, Data: data}
	if _, err := ds.Repo.Add(ctx, artifact.Dashboard, []byte(`name: d
dashboard_sections:
  - widgets:
      - {widget_type: table, title: t1, stream: alarms, columns: [id, severity, owner]}
      - {widget_type: table, title: t2, stream: empty stream, columns: [x]}
`), false); err != nil {
		t.Fatal(err)
	}
	rows, err := ds.Verify(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	want := []dashboards.Row{
		{Dashboard: "d", Type: "dashboard", WidgetType: "table", Title: "t1", Stream: "alarms",
			Columns: []string{"id", "severity", "owner"}, StreamStatus: dashboards.Found, MissingColumns: []string{"owner"}},
		{Dashboard: "d", Type: "dashboard", WidgetType: "table", Title: "t2", Stream: "empty stream",
			Columns: []string{"x"}, StreamStatus: dashboards.Found, MissingColumns: []string{}},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("verify:\n got %+v\nwant %+v", rows, want)
	}
}
