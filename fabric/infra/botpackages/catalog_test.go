package botpackages_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/gc"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
)

const yml = `extension:
  namespace: acme
  type: bot-package
  version: VERSION
  description: Acme bots
  default_name: acme-bots
  publisher: Acme
  support_email: ""
  config_template: {hostname: "", $mandatory: [hostname]}
  implementation: {code: acme.Bots}
bots:
  - {name: items, bot_type: source, model_type: api}
`

func archive(t *testing.T, version string) []byte {
	t.Helper()
	data, err := botpkg.Pack(fstest.MapFS{
		"bots.yml":  {Data: []byte(strings.Replace(yml, "VERSION", version, 1))},
		"acme.star": {Data: []byte("def items(frame, params, config):\n    return []\n\nBots = struct(items = items)\n")},
	}, botpkg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCatalog: add, a newer version replaces, an older one is refused,
// the sweep keeps the archive, a pipeline using the namespace blocks
// delete and is named.
func TestCatalog(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	s, err := store.Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	c := &botpackages.Catalog{Store: s, Deployments: func(ctx context.Context, pipelines map[string]bool) ([]string, error) {
		return artifact.DeploymentsRunning(ctx, s, pipelines)
	}}
	rec, err := c.Add(ctx, archive(t, "1.2.0"), false)
	if err != nil || rec.Version != "1.2.0" || strings.Join(rec.Bots, ",") != "@acme:items" {
		t.Fatalf("add: %+v %v", rec, err)
	}
	if _, err := c.Add(ctx, archive(t, "1.10.0"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Add(ctx, archive(t, "1.9.0"), false); err == nil || !strings.Contains(err.Error(), "version 1.10.0 is added already; version 1.9.0 is not newer") {
		t.Fatalf("older: %v", err)
	}
	all, err := c.List(ctx)
	if err != nil || len(all) != 1 || all[0].Version != "1.10.0" {
		t.Fatalf("list: %+v %v", all, err)
	}
	if r, err := gc.Collect(ctx, s, 0, false); err != nil || len(r.Blobs) != 0 {
		t.Fatalf("the sweep removed %v (%v)", r.Blobs, err)
	}
	text, err := c.Manifest(ctx, "acme-bots")
	if err != nil || !strings.Contains(string(text), "version: 1.10.0") {
		t.Fatalf("manifest: %s %v", text, err)
	}
	pipe := api.Pipeline{Name: "fetch", Version: "2026_01_01_1", Data: api.PipelineData{Sequence: []api.PipelineStep{{Tag: "@acme:items"}}}}
	if err := s.Put(ctx, api.PipelinesBucket, "fetch.2026_01_01_1", pipe, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Delete(ctx, "acme-bots", ""); err == nil || err.Error() != "bot package acme-bots is in use by pipeline fetch: delete or change those first" {
		t.Fatalf("delete in use: %v", err)
	}
	if err := s.Delete(ctx, api.PipelinesBucket, "fetch.2026_01_01_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Delete(ctx, "acme-bots", "1.2.0"); err == nil || !strings.Contains(err.Error(), "is version 1.10.0, not 1.2.0") {
		t.Fatalf("delete version: %v", err)
	}
	if _, err := c.Delete(ctx, "acme-bots", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "acme-bots"); err == nil || err.Error() != `no bot package named "acme-bots" is added` {
		t.Fatalf("get: %v", err)
	}
	blobs, _ := s.Blobs(ctx)
	for _, b := range blobs {
		if strings.HasPrefix(b, api.BotPackagesFolder) {
			t.Fatalf("left %s", b)
		}
	}
	if _, err := c.Add(ctx, []byte("nope"), false); err == nil || !strings.Contains(err.Error(), "not a .tar.gz") {
		t.Fatalf("bad: %v", err)
	}
}
