package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

const hotHostsYAML = `name: hot-hosts
description: hosts over 90% cpu
usecase: capacity
category: infra
sources:
  metrics: {type: stream}
data:
  name: hot-hosts
  sequence:
    - tag: "@dm:empty"
    - tag: "@dm:addrow"
      query: host = 'web-1' & cpu = 93.5
    - tag: "*dm:filter"
      query: cpu > 90
      comment: hot only
artifacts:
  - {artifact_type: dataset, artifact_name: hot-hosts, access: write}
`

const hotHostsText = `## start empty
@dm:empty
  --> @dm:addrow host = 'web-1'
        & cpu = 93.5
  ## hot only
  --> *dm:filter cpu > 90
`

// today is the day part of versions added now.
func today() string { return time.Now().UTC().Format(pipeline.VersionDayFormat) }

func pipelineJSONOf(t *testing.T, args ...string) api.Pipeline {
	t.Helper()
	out, errOut, code := run(t, "", append([]string{"pipeline", "get", "--json"}, args...)...)
	var p api.Pipeline
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("get %v: %d %q\n%s", args, code, errOut, out)
	}
	return p
}

// addPipeline adds a file and returns the version it printed.
func addPipeline(t *testing.T, args ...string) (name, version string) {
	t.Helper()
	out, errOut, code := run(t, "", append([]string{"pipeline", "add"}, args...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "name") || !strings.Contains(errOut, "added pipeline") {
		t.Fatalf("add %v: %d %q\n%s", args, code, errOut, out)
	}
	f := strings.Fields(lines[2])
	return f[0], f[1]
}

func TestPipelineCommands(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	yml := write(t, dir, "hot.yaml", hotHostsYAML)

	// Each add is the next version of the day.
	day := today()
	for i := 1; i <= 3; i++ {
		name, version := addPipeline(t, "--file", yml)
		if name != "hot-hosts" || version != fmt.Sprintf("%s_%d", day, i) {
			t.Fatalf("add %d: %s %s", i, name, version)
		}
	}
	p := pipelineJSONOf(t, "--name", "hot-hosts", "--version", day+"_2")
	want := api.Pipeline{Name: "hot-hosts", Description: "hosts over 90% cpu", Usecase: "capacity", Category: "infra", Version: day + "_2",
		Sources: map[string]api.PipelineSource{"metrics": {Name: "metrics", Type: "stream"}},
		Data: api.PipelineData{Name: "hot-hosts", Sequence: []api.PipelineStep{
			{Tag: "@dm:empty"}, {Tag: "@dm:addrow", Query: "host = 'web-1' & cpu = 93.5"}, {Tag: "*dm:filter", Query: "cpu > 90", Comment: "hot only"}}},
		Artifacts: []api.PipelineArtifact{{ArtifactType: "dataset", ArtifactName: "hot-hosts", Access: "write"}},
		Pipetype:  api.PipetypePublished, Format: api.PipelineYAML}
	if p.SavedTime == "" {
		t.Errorf("no saved_time: %+v", p)
	}
	p.SavedTime = ""
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("get --json:\n got %+v\nwant %+v", p, want)
	}

	// The text form: steps only, named after the file, comments on the
	// next step.
	txt := write(t, dir, "cpu-watch.pipeline", hotHostsText)
	if name, version := addPipeline(t, "--file", txt); name != "cpu-watch" || version != day+"_1" {
		t.Fatalf("text add: %s %s", name, version)
	}
	tp := pipelineJSONOf(t, "--name", "cpu-watch", "--version", day+"_1")
	wantSeq := []api.PipelineStep{{Tag: "@dm:empty", Comment: "start empty"}, {Tag: "@dm:addrow", Query: "host = 'web-1' & cpu = 93.5"},
		{Tag: "*dm:filter", Query: "cpu > 90", Comment: "hot only"}}
	if !reflect.DeepEqual(tp.Data.Sequence, wantSeq) || tp.Data.Name != "cpu-watch" || tp.Format != api.PipelineText {
		t.Fatalf("text form: %+v", tp)
	}

	// JSON with --name and --pipetype.
	js := write(t, dir, "x.json", pipelineJSON)
	if name, version := addPipeline(t, "--file", js, "--name", "hot-draft", "--pipetype", "Draft"); name != "hot-draft" || version != day+"_1" {
		t.Fatalf("json add: %s %s", name, version)
	}
	if dp := pipelineJSONOf(t, "--name", "hot-draft", "--version", day+"_1"); dp.Pipetype != api.PipetypeDraft || dp.Format != api.PipelineJSON || len(dp.Data.Sequence) != 3 {
		t.Fatalf("draft: %+v", dp)
	}

	// list: the latest of each name.
	out, _, code := run(t, "", "pipeline", "list")
	if code != 0 || !strings.HasPrefix(out, "category  description") || !strings.Contains(out, "saved_time") ||
		!strings.Contains(out, day+"_3") || strings.Contains(out, day+"_2") || strings.Count(out, "\n") != 5 {
		t.Fatalf("list:\n%s", out)
	}
	out, _, _ = run(t, "", "pipeline-list", "--json")
	var list []api.Pipeline
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 ||
		list[0].Name != "cpu-watch" || list[1].Name != "hot-draft" || list[2].Name != "hot-hosts" || list[2].Version != day+"_3" {
		t.Fatalf("list --json: %v\n%s", err, out)
	}

	// get-versions, oldest first.
	out, _, code = run(t, "", "pipeline", "get-versions", "--name", "hot-hosts")
	if code != 0 || strings.Count(out, "\n") != 5 || strings.Index(out, day+"_1") > strings.Index(out, day+"_3") {
		t.Fatalf("get-versions:\n%s", out)
	}
	out, _, _ = run(t, "", "pipeline", "get-versions", "--name", "hot-hosts", "--json")
	var versions []api.Pipeline
	if err := json.Unmarshal([]byte(out), &versions); err != nil || len(versions) != 3 || versions[2].Version != day+"_3" {
		t.Fatalf("get-versions --json: %v\n%s", err, out)
	}

	// get prints YAML that reads back as the pipeline.
	out, _, code = run(t, "", "pipeline", "get", "--name", "hot-hosts", "--version", day+"_1")
	var doc map[string]any
	if code != 0 || yaml.Unmarshal([]byte(out), &doc) != nil || doc["name"] != "hot-hosts" || doc["version"] != day+"_1" || !strings.Contains(out, "  sequence:\n") {
		t.Fatalf("get (YAML):\n%s", out)
	}
	// --tofile writes YAML (or JSON by extension), which adds back.
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"out/again.yaml", "out/again.json"} {
		to := filepath.Join(dir, f)
		if _, errOut, code := run(t, "", "pipeline", "get", "--name", "hot-hosts", "--version", day+"_1", "--tofile", to); code != 0 || !strings.Contains(errOut, "wrote pipeline") {
			t.Fatalf("get --tofile %s: %d %q", f, code, errOut)
		}
		data, _ := os.ReadFile(to)
		if strings.HasSuffix(f, ".json") != json.Valid(data) {
			t.Fatalf("%s:\n%s", f, data)
		}
		_, version := addPipeline(t, "--file", to)
		back := pipelineJSONOf(t, "--name", "hot-hosts", "--version", version)
		if !reflect.DeepEqual(back.Data, want.Data) || !reflect.DeepEqual(back.Sources, want.Sources) || back.Description != want.Description {
			t.Fatalf("%s reads back differently: %+v", f, back)
		}
	}

	// delete one version.
	if _, errOut, code := run(t, "", "pipeline", "delete", "--name", "hot-hosts", "--version", day+"_1"); code != 0 || !strings.Contains(errOut, "deleted pipeline") {
		t.Fatalf("delete: %d %q", code, errOut)
	}
	_, errOut, code := run(t, "", "pipeline", "get", "--name", "hot-hosts", "--version", day+"_1")
	if code != 1 || errOut != fmt.Sprintf("error: pipeline get: pipeline \"hot-hosts\" has no version %q\n", day+"_1") {
		t.Fatalf("get deleted: %d %q", code, errOut)
	}
	// A deleted version is not reused while a later one exists.
	if _, version := addPipeline(t, "--file", yml); version != day+"_6" {
		t.Fatalf("add after delete: %s", version)
	}

	// convert-to-json: every YAML version of the folder, listed.
	out, errOut, code = run(t, "", "pipeline", "convert-to-json", "--pipetype", "Published")
	if code != 0 || !strings.HasPrefix(out, "name       version") || strings.Count(out, "hot-hosts") != 4 || strings.Contains(out, "cpu-watch") ||
		!strings.Contains(errOut, "converted 4 Published pipeline version(s)") {
		t.Fatalf("convert-to-json: %d %q\n%s", code, errOut, out)
	}
	if p := pipelineJSONOf(t, "--name", "hot-hosts", "--version", day+"_2"); p.Format != api.PipelineJSON || !reflect.DeepEqual(p.Data, want.Data) {
		t.Fatalf("converted: %+v", p)
	}
	out, errOut, code = run(t, "", "pipeline", "convert-to-json", "--pipetype", "Published")
	if code != 0 || out != "" || !strings.Contains(errOut, "nothing to convert") {
		t.Fatalf("convert again: %d %q %q", code, out, errOut)
	}
}

func TestPipelineBadInput(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	fails := []struct {
		argv []string
		want string
	}{
		{[]string{"pipeline", "add", "--file", filepath.Join(dir, "missing.yaml")}, "error: pipeline add: open " + filepath.Join(dir, "missing.yaml") + ": no such file or directory\n"},
		{[]string{"pipeline", "add", "--file", write(t, dir, "bad.yaml", "name: x\ndata:\n  sequence:\n    - tag: '@dm:empty'\n      query: x: y\n")}, "bad.yaml: invalid YAML at line 5: mapping values are not allowed in this context\n"},
		{[]string{"pipeline", "add", "--file", write(t, dir, "field.yaml", "name: x\ndata:\n  sequence:\n    - tag: dm:empty\n")}, `field.yaml: line 4: data.sequence step 1: "dm:empty" is not a bot tag`},
		{[]string{"pipeline", "add", "--file", write(t, dir, "bad.json", "{\"name\": \"x\",\n \"data\": }")}, "bad.json: invalid JSON at line 2, column 10"},
		{[]string{"pipeline", "add", "--file", write(t, dir, "bad.txt", "@dm:empty\n  --> @dm:head n = 1\n  -->\n")}, "bad.txt: line 3: --> with no bot after it"},
		{[]string{"pipeline", "add", "--file", write(t, dir, "quote.txt", "@dm:empty\n  --> @dm:eval x = 'open\n")}, "quote.txt: line 2: the quote ' opened here is never closed"},
		{[]string{"pipeline", "add", "--file", write(t, dir, "empty.yaml", "")}, "empty.yaml: the pipeline is empty"},
		{[]string{"pipeline", "get", "--name", "nope", "--version", "2026_01_01_1"}, `error: pipeline get: no pipeline named "nope"` + "\n"},
		{[]string{"pipeline", "get-versions", "--name", "nope"}, `error: pipeline get-versions: no pipeline named "nope"` + "\n"},
		{[]string{"pipeline", "delete", "--name", "nope", "--version", "2026_01_01_1"}, `error: pipeline delete: no pipeline named "nope"` + "\n"},
	}
	for _, tt := range fails {
		out, errOut, code := run(t, "", tt.argv...)
		if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line with %q", tt.argv[1:], code, out, errOut, tt.want)
		}
	}
	// An unknown version of a known pipeline.
	addPipeline(t, "--file", write(t, dir, "ok.yaml", hotHostsYAML))
	_, errOut, code := run(t, "", "pipeline", "delete", "--name", "hot-hosts", "--version", "2026_01_01_3")
	if code != 1 || errOut != "error: pipeline delete: pipeline \"hot-hosts\" has no version \"2026_01_01_3\"\n" {
		t.Errorf("unknown version: %d %q", code, errOut)
	}
	_, errOut, code = run(t, "", "pipeline", "get", "--name", "hot-hosts", "--version", "not a.version")
	if code != 1 || errOut != "error: pipeline get: pipeline \"hot-hosts\" has no version \"not a.version\"\n" {
		t.Errorf("malformed version: %d %q", code, errOut)
	}

	usage := []struct{ argv, want string }{
		{"pipeline get --name x", "error: missing required flag --version"},
		{"pipeline get-versions", "error: missing required flag --name"},
		{"pipeline delete --name x", "error: missing required flag --version"},
		{"pipeline add", "error: missing required flag --file"},
		{"pipeline add --file x.yaml --pipetype final", "--pipetype"},
		{"pipeline convert-to-json", "error: missing required flag --pipetype"},
		{"pipeline convert-to-json --pipetype published", "--pipetype"},
	}
	for _, tt := range usage {
		_, errOut, code := run(t, "", strings.Fields(tt.argv)...)
		if code != 2 || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "usage: client ") {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q with usage", tt.argv, code, errOut, tt.want)
		}
	}
}

// TestPipelineConcurrentAdds adds one name from several clients at once:
// every add gets its own version.
func TestPipelineConcurrentAdds(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	p, err := tenant.LoadPipeline([]byte(hotHostsYAML), "hot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	var wg sync.WaitGroup
	versions := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := client.Connect(f.Configs["a"])
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close()
			rec, err := c.AddPipeline(context.Background(), p)
			versions[i], errs[i] = rec.Version, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(versions, func(i, j int) bool { return pipeline.CompareVersions(versions[i], versions[j]) < 0 })
	for i, v := range versions {
		if want := fmt.Sprintf("%s_%d", today(), i+1); v != want {
			t.Fatalf("versions %v, want _1 to _%d", versions, n)
		}
	}
}

// TestPipelineScript uses the module from Starlark: add from text, get,
// parse and to_text.
func TestPipelineScript(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	src := `
p = pipeline.add(text = "@dm:empty --> *dm:filter cpu > 90", name = "s1", pipetype = "Draft")
print(p["name"], p["version"].endswith("_1"), p["pipetype"], p["format"], len(p["data"]["sequence"]))
print(pipeline.get("s1")["version"] == p["version"])
q = pipeline.parse("name: y\ndata:\n  sequence:\n    - {tag: '@dm:empty', comment: hi}\n")
print(q["name"], q["format"], pipeline.to_text(q["data"]["sequence"]).strip())
print(try_(pipeline.add)[1])
print(try_(pipeline.add, text = "@dm:empty")[1])
print(try_(pipeline.get, "s1", version = "2026_01_01_9")[1])
`
	out, errOut, code := run(t, src)
	want := "s1 True Draft text 2\nTrue\ny yaml ## hi\n@dm:empty\npipeline.add: give file or text\npipeline.add: the pipeline has no name: give name=\n" +
		"pipeline.get: pipeline \"s1\" has no version \"2026_01_01_9\"\n"
	if code != 0 || out != want {
		t.Fatalf("%d %q\n%s\nwant\n%s", code, errOut, out, want)
	}
}

// TestChecksumForms checks the checksum of one pipeline written as JSON,
// YAML and the text form.
func TestChecksumForms(t *testing.T) {
	dir := t.TempDir()
	js := write(t, dir, "hot-hosts.json", pipelineJSON)
	yml := write(t, dir, "hot-hosts.yaml", `name: hot-hosts
version: "2026_11_21_1"
data:
  name: hot-hosts
  sequence:
    - {tag: "@dm:empty", query: "", comment: ""}
    - {tag: "@dm:addrow", query: "host = 'web-1' & cpu = 93.5", comment: ""}
    - {tag: "*dm:filter", query: "cpu > 90", comment: hot only}
`)
	txt := write(t, dir, "hot-hosts.pipeline", "@dm:empty\n  --> @dm:addrow host = 'web-1' & cpu = 93.5\n  ## hot only\n  --> *dm:filter cpu > 90\n")
	var sums [3]struct {
		Name     string `json:"name"`
		Checksum string `json:"checksum"`
		Steps    []struct {
			Tag      string `json:"tag"`
			Checksum string `json:"checksum"`
		} `json:"steps"`
	}
	for i, f := range []string{js, yml, txt} {
		out, errOut, code := run(t, "", "checksum", "--pipeline", f, "--json")
		if code != 0 || json.Unmarshal([]byte(out), &sums[i]) != nil {
			t.Fatalf("%s: %d %q\n%s", f, code, errOut, out)
		}
	}
	if !reflect.DeepEqual(sums[0], sums[1]) {
		t.Fatalf("JSON and YAML differ:\n%+v\n%+v", sums[0], sums[1])
	}
	if sums[2].Name != "hot-hosts" || !reflect.DeepEqual(sums[2].Steps, sums[0].Steps) || sums[2].Checksum == sums[0].Checksum {
		t.Fatalf("text form: %+v\nwant the steps of %+v", sums[2], sums[0])
	}
	yout, _, _ := run(t, "", "checksum", "--pipeline", yml)
	jout, _, _ := run(t, "", "checksum", "--pipeline", js)
	if yout != jout {
		t.Fatalf("tables differ:\n%s\n%s", yout, jout)
	}
	for _, tt := range []struct{ name, content, want string }{
		{"bad.yaml", "name: x\n  bad: indent\n", "bad.yaml: invalid YAML at line 2: mapping values are not allowed in this context"},
		{"bad.pipeline", "@dm:empty\n-->\n", "bad.pipeline: line 2: --> with no bot after it"},
	} {
		_, errOut, code := run(t, "", "checksum", "--pipeline", write(t, dir, tt.name, tt.content))
		if code != 1 || !strings.HasPrefix(errOut, "error: "+dir) || !strings.HasSuffix(errOut, tt.want+"\n") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: %d %q, want %q", tt.name, code, errOut, tt.want)
		}
	}
}
