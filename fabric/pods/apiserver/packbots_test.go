package apiserver_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/pack"
)

// toolsYML is the bots.yml of the bot package netops-tools, version v.
func toolsYML(v string) string {
	return `extension:
  namespace: netops
  type: bot-package
  version: ` + v + `
  description: Network helpers
  default_name: netops-tools
  publisher: Fabric
  support_email: ""
  config_template: {}
  implementation: {code: tools.Bots}
bots:
  - {name: grade, bot_type: transform, model_type: api}
`
}

// toolsStar is the module of netops-tools; its braces are code, not a
// placeholder.
const toolsStar = `def grade(frame, params, config):
    return [dict(row, level = "{{ high }}" if row["devices"] > 20 else "low") for row in frame]

Bots = struct(grade = grade)
`

// botPack is a pack of netops-tools and a pipeline calling its bot, the
// package's files edited by edit (nil: as they are).
func botPack(version, policy string, edit func(files map[string]string)) (pack.Manifest, map[string]string) {
	m := pack.Manifest{Name: "tools", Version: version, Artifacts: []pack.Artifact{
		{Type: pack.TypeBotPackage, Name: "netops-tools", File: "bot_packages/netops-tools", Scope: pack.ScopeCommon, CreationPolicy: policy},
		{Type: pack.TypePipeline, Name: "graded", File: "pipelines/graded.pipeline", Scope: pack.ScopeCommon, CreationPolicy: pack.PolicyFail},
	}}
	files := map[string]string{
		"bot_packages/netops-tools/bots.yml":         toolsYML("1.0.0"),
		"bot_packages/netops-tools/tools.star":       toolsStar,
		"bot_packages/netops-tools/fixtures/in.json": `[{"devices": 30}]`,
		"pipelines/graded.pipeline":                  "@dm:empty\n  --> @dm:addrow devices = 30\n  --> @netops:grade\n",
	}
	if edit != nil {
		edit(files)
	}
	return m, files
}

// addBots adds a bot package of the files by hand, as bot-package add.
func addBots(t *testing.T, cat *botpackages.Catalog, files map[string]string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		if rest, ok := strings.CutPrefix(name, "bot_packages/netops-tools/"); ok {
			fsys[rest] = &fstest.MapFile{Data: []byte(text)}
		}
	}
	archive, err := botpkg.Pack(fsys, botpkg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Add(context.Background(), archive, true); err != nil {
		t.Fatal(err)
	}
}

// TestPackBotPackage: a pack's bot package is added to the catalog
// before the pipeline that calls it and deleted by deactivation; one a
// user has (creation_policy fail refuses, skip leaves it) or replaced
// since the activation stays; a package that does not compile, or whose
// namespace another package has, is refused before anything is written;
// --force takes back a half-way activation's package.
func TestPackBotPackage(t *testing.T) {
	e := startPacks(t)
	ctx := context.Background()
	bots := &botpackages.Catalog{Store: e.st, Deployments: func(ctx context.Context, pipelines map[string]bool) ([]string, error) {
		return artifact.DeploymentsRunning(ctx, e.st, pipelines)
	}}
	listed := func() string {
		t.Helper()
		recs, err := bots.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.Name+" "+r.Version+" "+strings.Join(r.Bots, ","))
		}
		return strings.Join(out, ";")
	}
	upload := func(version, policy string, edit func(map[string]string)) {
		m, files := botPack(version, policy, edit)
		e.upload(t, m, files)
	}
	upload("1.0.0", pack.PolicyFail, nil)
	upload("1.0.1", pack.PolicySkip, nil)
	upload("1.0.2", pack.PolicyFail, func(f map[string]string) {
		f["bot_packages/netops-tools/tools.star"] = strings.Replace(toolsStar, "for row in frame]", "for row in frame", 1)
	})
	upload("1.0.3", pack.PolicyFail, func(f map[string]string) {
		f["bot_packages/netops-tools/bots.yml"] = strings.Replace(toolsYML("1.0.0"), "default_name: netops-tools", "default_name: net-tools", 1)
	})
	req := func(version string) api.PackRequest {
		return api.PackRequest{Name: "tools", Version: version, Scope: pack.ScopeCommon}
	}
	before := e.snapshot(t)

	rows, err := e.request(t, api.SubjectPackActivate, req("1.0.0"))
	if err != nil || len(rows) != 2 || rows[0].Type != pack.TypeBotPackage || rows[0].Status != api.PackSuccess || rows[0].PipelineVersion != "" {
		t.Fatalf("activation: %v %+v", err, rows)
	}
	if got := listed(); got != "netops-tools 1.0.0 @netops:grade" {
		t.Fatalf("the catalog after activation: %s", got)
	}
	fsys, err := bots.Files(ctx, mustGet(t, bots, "netops-tools"))
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := fsys.(interface{ ReadFile(string) ([]byte, error) }).ReadFile("tools.star"); string(data) != toolsStar {
		t.Fatalf("the stored module was changed: %q", data)
	}
	if _, err := bots.Delete(ctx, "netops-tools", ""); err == nil || !strings.Contains(err.Error(), "in use by pipeline graded") {
		t.Fatalf("deleting the package the pack's pipeline calls: %v", err)
	}
	rows, err = e.request(t, api.SubjectPackDeactivate, req("1.0.0"))
	if err != nil || len(rows) != 2 || rows[1].Type != pack.TypeBotPackage {
		t.Fatalf("deactivation: %v %+v", err, rows)
	}
	if after := e.snapshot(t); after != before || listed() != "" {
		t.Fatalf("after deactivation the tenant has\n%s\n%s\nwant\n%s", after, listed(), before)
	}

	for _, tc := range []struct {
		name, version, want string
	}{
		{"module does not compile", "1.0.2", "bot_package netops-tools (bot_packages/netops-tools): tools.star:4:5: got identifier"},
		{"name is not the manifest's", "1.0.3", `its default_name is "net-tools", the manifest names it "netops-tools"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.request(t, api.SubjectPackActivate, req(tc.version))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
			if after := e.snapshot(t); after != before || listed() != "" {
				t.Fatalf("after a refused activation the tenant has\n%s\n%s", after, listed())
			}
		})
	}

	// A package of the same name the user added: refused by fail, left
	// by skip (and by its deactivation).
	_, mine := botPack("0", "", func(f map[string]string) { f["bot_packages/netops-tools/bots.yml"] = toolsYML("0.9.0") })
	addBots(t, bots, mine)
	if _, err := e.request(t, api.SubjectPackActivate, req("1.0.0")); err == nil ||
		!strings.Contains(err.Error(), "bot_package netops-tools (bot_packages/netops-tools) exists already, and its creation_policy is fail") {
		t.Fatalf("activation over the user's package: %v", err)
	}
	rows, err = e.request(t, api.SubjectPackActivate, req("1.0.1"))
	if err != nil || rows[0].Status != api.PackSkipped {
		t.Fatalf("activation skipping the user's package: %v %+v", err, rows)
	}
	if _, err := e.request(t, api.SubjectPackDeactivate, req("1.0.1")); err != nil {
		t.Fatal(err)
	}
	if got := listed(); got != "netops-tools 0.9.0 @netops:grade" {
		t.Fatalf("the user's package after the pack skipped it: %s", got)
	}

	// A namespace another package has.
	_, other := botPack("0", "", func(f map[string]string) {
		f["bot_packages/netops-tools/bots.yml"] = strings.Replace(toolsYML("1.0.0"), "default_name: netops-tools", "default_name: other-tools", 1)
	})
	if _, err := bots.Delete(ctx, "netops-tools", ""); err != nil {
		t.Fatal(err)
	}
	addBots(t, bots, other)
	if _, err := e.request(t, api.SubjectPackActivate, req("1.0.0")); err == nil || !strings.Contains(err.Error(), "its namespace netops is bot package other-tools's") {
		t.Fatalf("activation of a namespace another package has: %v", err)
	}
	if _, err := bots.Delete(ctx, "other-tools", ""); err != nil {
		t.Fatal(err)
	}

	// Replaced by the user after the activation: deactivation leaves it.
	if _, err := e.request(t, api.SubjectPackActivate, req("1.0.0")); err != nil {
		t.Fatal(err)
	}
	_, newer := botPack("0", "", func(f map[string]string) { f["bot_packages/netops-tools/bots.yml"] = toolsYML("2.0.0") })
	addBots(t, bots, newer)
	if _, err := e.request(t, api.SubjectPackDeactivate, req("1.0.0")); err != nil {
		t.Fatal(err)
	}
	if got := listed(); got != "netops-tools 2.0.0 @netops:grade" {
		t.Fatalf("the package the user replaced after the activation: %s", got)
	}

	// An activation its api-server left half-way: --force deletes the
	// package it added, unchanged since.
	if _, err := bots.Delete(ctx, "netops-tools", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.request(t, api.SubjectPackActivate, req("1.0.0")); err != nil {
		t.Fatal(err)
	}
	key := store.Key("tools#common#")
	var act api.PackActivation
	if _, err := e.st.Get(ctx, api.PackActivationsBucket, key, &act); err != nil {
		t.Fatal(err)
	}
	act.State = api.PackActivating
	if err := e.st.Put(ctx, api.PackActivationsBucket, key, act, 0); err != nil {
		t.Fatal(err)
	}
	force := req("1.0.0")
	force.Force = true
	if rows, err := e.request(t, api.SubjectPackDeactivate, force); err != nil || len(rows) != 2 {
		t.Fatalf("deactivation with force: %v %+v", err, rows)
	}
	if after := e.snapshot(t); after != before || listed() != "" {
		t.Fatalf("after deactivation with force the tenant has\n%s\n%s", after, listed())
	}
}

// mustGet returns the record of a bot package.
func mustGet(t *testing.T, c *botpackages.Catalog, name string) api.BotPackageRecord {
	t.Helper()
	rec, err := c.Get(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
