package pipeline

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

const hotYAML = `# a YAML comment
name: hot
description: hosts over 90% cpu
usecase: capacity
category: infra
version: "1.0"
sources:
  metrics: {type: stream}
data:
  name: hot-data
  sequence:
    - tag: "@dm:empty"
    - tag: "*dm:filter"
      query: cpu > 90
      comment: hot only
artifacts:
  - {artifact_type: dataset, artifact_name: hot-hosts, access: write}
html_data: <p>hot</p>
pipetype: draft
`

func hotPipeline() Pipeline {
	return Pipeline{Name: "hot", Description: "hosts over 90% cpu", Usecase: "capacity", Category: "infra", Version: "1.0",
		Sources: map[string]Source{"metrics": {Name: "metrics", Type: "stream"}},
		Data: Data{Name: "hot-data", Sequence: []Step{
			step("@dm:empty", "", ""), step("*dm:filter", "cpu > 90", "hot only")}},
		Artifacts: []Artifact{{ArtifactType: "dataset", ArtifactName: "hot-hosts", Access: "write"}},
		HTMLData:  "<p>hot</p>", Pipetype: Draft, Format: FormYAML}
}

func TestLoadForms(t *testing.T) {
	want := hotPipeline()
	got, err := Load([]byte(hotYAML), "dir/whatever.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("YAML:\n got %+v\nwant %+v", got, want)
	}
	// The same as JSON.
	js, _ := json.Marshal(want)
	for _, name := range []string{"p.json", "p", "p.txt"} {
		got, err = Load(js, name)
		want.Format = FormJSON
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("JSON as %s (%v):\n got %+v\nwant %+v", name, err, got, want)
		}
	}
	// The text form: steps only, named after the file.
	got, err = Load([]byte(domainText), "/tmp/hot-hosts.pipeline")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "hot-hosts" || got.Data.Name != "hot-hosts" || got.Format != FormText || len(got.Data.Sequence) != 7 ||
		got.Data.Sequence[5] != step("*dm:filter", "cpu > 90 get host, cpu", "") {
		t.Fatalf("text: %+v", got)
	}
}

func TestLoadNames(t *testing.T) {
	tests := []struct{ in, file, name, dataName string }{
		{"name: a\ndata: {sequence: []}", "x.yaml", "a", "a"},
		{"data: {name: b, sequence: []}", "x.yaml", "b", "b"},
		{"description: no name", "dir/c.v2.yaml", "c.v2", "c.v2"},
		{`{"data": {"sequence": [{"tag": "@dm:empty"}]}}`, "d.json", "d", "d"},
		{"@dm:empty", "e.txt", "e", "e"},
		{"@dm:empty", "", "", ""},
	}
	for _, tt := range tests {
		p, err := Load([]byte(tt.in), tt.file)
		if err != nil || p.Name != tt.name || p.Data.Name != tt.dataName || p.Data.Sequence == nil {
			t.Errorf("Load(%q, %q) = %q, %q, %v; want %q, %q", tt.in, tt.file, p.Name, p.Data.Name, err, tt.name, tt.dataName)
		}
	}
}

func TestForm(t *testing.T) {
	tests := []struct{ in, file, want string }{
		{"{}", "", FormJSON},
		{"  [1]", "", FormJSON},
		{"name: x", "", FormYAML},
		{"{name: x}", "p.yml", FormYAML},
		{"name: x", "p.json", FormJSON},
		{"# yaml comment\n## text comment\n\n  @dm:empty", "p.yaml", FormText},
		{"#es:query x > 1", "p.json", FormText},
		{"*dm:filter x", "", FormText},
		{"--> @dm:empty", "", FormText},
		{"# comment\nname: x", "", FormYAML},
	}
	for _, tt := range tests {
		if got := Form([]byte(tt.in), tt.file); got != tt.want {
			t.Errorf("Form(%q, %q) = %s, want %s", tt.in, tt.file, got, tt.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ in, file, want string }{
		{"", "p.yaml", "the pipeline is empty"},
		{"# nothing\n", "p.yaml", "the pipeline is empty"},
		{"", "p.json", "invalid JSON: the document is empty or cut short"},
		{"name: x\ndata:\n  sequence: [\n  - a: b\n", "p.yaml", "invalid YAML at line "},
		{"name: x\n  bad: indent\n", "p.yaml", "invalid YAML at line 2: mapping values are not allowed in this context"},
		{"{\n  \"name\": \"x\",,\n}", "p.json", "invalid JSON at line 2, column 15"},
		{"- a\n- b\n", "p.yaml", "not a pipeline: the document is a list, want a mapping"},
		{"~", "p.yaml", "not a pipeline: the document is null, want a mapping"},
		{"[1]", "p.json", "not a pipeline: the document is an array, want an object"},
		{"name: x\nsequnce: []\n", "p.yaml", `line 2: unknown field "sequnce" (the fields are name, description,`},
		{"name: x\ndata:\n  sequnce: []\n", "p.yaml", `line 3: data: unknown field "sequnce" (the fields are name, sequence)`},
		{"name: [x]\n", "p.yaml", "line 1: name: want text, not a list"},
		{`{"name": {"a": 1}}`, "p.json", "name: want text, not an object"},
		{"data:\n  sequence:\n    - tag: '@dm:empty'\n    - tag: dm:head\n", "p.yaml", `line 4: data.sequence step 2: "dm:head" is not a bot tag`},
		{"data:\n  sequence:\n    - query: x\n", "p.yaml", "line 3: data.sequence step 1: the step has no bot tag"},
		{"data:\n  sequence:\n    - tag: '@dm:empty'\n      when: now\n", "p.yaml", `line 4: data.sequence step 1: unknown field "when" (the fields are comment, query, tag)`},
		{"data:\n  sequence:\n    -\n", "p.yaml", "data.sequence step 1: the step is empty"},
		{"data:\n  sequence: {tag: x}\n", "p.yaml", "line 2: data.sequence: want a list, not a mapping"},
		{"sources: [a]\n", "p.yaml", "line 1: sources: want a mapping of source names to {name, type}, not a list"},
		{"sources:\n  s: {name: a, kind: b}\n", "p.yaml", `line 2: sources.s: unknown field "kind" (the fields are name, type)`},
		{"artifacts:\n  - {artifact_type: dataset, mode: write}\n", "p.yaml", `line 2: artifacts[0]: unknown field "mode"`},
		{"pipetype: final\n", "p.yaml", `line 1: pipetype: pipetype must be Published or Draft, not "final"`},
		{"name: a\nname: b\n", "p.yaml", `line 2: "name" is given twice`},
		{"name: a\n---\nname: b\n", "p.yaml", "a second YAML document: give one pipeline per file"},
		{"@dm:empty\n  --> ", "p.txt", "line 2: --> with no bot after it"},
		{"a: &a [*a]\n", "p.yaml", "line 1: the YAML alias *a refers to a node that contains it (a recursive alias)"},
		{yamldoc.BillionLaughs("name: x\n"), "p.yaml", "the YAML document's aliases expand it by more than its alias expansion limit of 100000 nodes"},
	}
	for _, tt := range tests {
		_, err := Load([]byte(tt.in), tt.file)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q, %q) error = %v, want %q", tt.in, tt.file, err, tt.want)
		}
	}
}

// TestChecksumForms checks that a pipeline has the same checksums in JSON
// and in YAML, and that its text form has the same step checksums.
func TestChecksumForms(t *testing.T) {
	// Unquoted, 2026_11_21_1 would be the YAML integer 202611211.
	yml := "name: hot\nversion: '2026_11_21_1'\ndata:\n  name: hot\n  sequence:\n" +
		"    - {tag: '@dm:empty', query: '', comment: start}\n" +
		"    - {tag: '*dm:filter', query: cpu > 90, comment: ''}\n"
	a, err := Checksum([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Checksum([]byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("JSON and YAML differ:\n%+v\n%+v", a, b)
	}
	c, err := ChecksumFile([]byte("## start\n@dm:empty\n  --> *dm:filter cpu > 90\n"), "hot.txt")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "hot" || !reflect.DeepEqual(c.Steps, a.Steps) || c.Checksum == a.Checksum {
		t.Fatalf("text form: %+v\nwant the steps of %+v", c, a)
	}
	// Numbers: YAML ints and floats checksum as JSON numbers do.
	n1, _ := Checksum([]byte(`{"data": {"n": 1.50, "big": 12345678901234567890123, "x": 0x10}}`))
	n2, err := Checksum([]byte("data: {n: 1.5, big: 12345678901234567890123, x: 0x10}"))
	if n1 != nil || err != nil {
		t.Fatalf("want a JSON error for 0x10 and none for YAML: %v %v", n1, err)
	}
	n3, _ := Checksum([]byte(`{"data": {"n": 1.5, "big": 12345678901234567890123, "x": 16}}`))
	if n2.Checksum != n3.Checksum {
		t.Fatalf("YAML numbers checksum differently from JSON ones")
	}
}

// FuzzLoad checks that no input panics, and that a loaded pipeline reads
// back the same from its JSON.
func FuzzLoad(f *testing.F) {
	f.Add(hotYAML, uint8(0))
	f.Add(domainText, uint8(1))
	js, _ := json.Marshal(hotPipeline())
	f.Add(string(js), uint8(2))
	f.Add("a: &a [*a, *a]\nb: *a", uint8(0))
	f.Add(yamldoc.BillionLaughs("name: x\n"), uint8(0))
	f.Add("data:\n  sequence:\n    - {tag: '#x:y', query: 1e3}\n", uint8(3))
	names := []string{"p.yaml", "p.txt", "p.json", ""}
	f.Fuzz(func(t *testing.T, in string, which uint8) {
		name := names[int(which)%len(names)]
		p, err := Load([]byte(in), name)
		if err != nil {
			return
		}
		if p.Data.Sequence == nil || p.Format == "" {
			t.Fatalf("incomplete pipeline %+v", p)
		}
		for _, s := range p.Data.Sequence {
			if !ValidTag(s.Tag) {
				t.Fatalf("invalid tag %q", s.Tag)
			}
		}
		if !utf8.ValidString(in) {
			return // JSON would replace the bad bytes
		}
		js, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Load(js, name)
		if err != nil {
			t.Fatalf("its JSON does not load: %v\n%s", err, js)
		}
		again.Format = p.Format
		if !reflect.DeepEqual(again, p) {
			t.Fatalf("reads back differently:\n%+v\n%+v", p, again)
		}
	})
}
