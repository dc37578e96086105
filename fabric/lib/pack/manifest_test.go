package pack

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

func TestParseManifestErrors(t *testing.T) {
	const head = "name: x\nversion: 1.0\n"
	for _, tc := range []struct {
		name, yaml, error string
	}{
		{"empty", "", "manifest.yaml: the manifest is empty"},
		{"not a mapping", "[a, b]", "manifest.yaml: line 1: the manifest is not a mapping"},
		{"syntax", "name: [x\n", "manifest.yaml: yaml: line 1"},
		{"alias bomb", yamldoc.BillionLaughs(head), "manifest.yaml: the YAML document's aliases expand it"},
		{"unknown key", head + "author: me\n", `manifest.yaml: line 3: unknown key "author"`},
		{"key twice", head + "name: y\n", `manifest.yaml: line 3: key "name" is given twice`},
		{"no name", "version: 1\n", "manifest.yaml: no name"},
		{"bad name", "name: -x\nversion: 1\n", `manifest.yaml: name "-x" is not a pack name`},
		{"long name", "name: " + strings.Repeat("a", 101) + "\nversion: 1\n", `is not a pack name`},
		{"no version", "name: x\n", "manifest.yaml: no version"},
		{"bad version", "name: x\nversion: v1.0\n", `manifest.yaml: version "v1.0" is not 1 to 4 dotted numbers`},
		{"five parts", "name: x\nversion: 1.2.3.4.5\n", `manifest.yaml: version "1.2.3.4.5" is not`},
		{"name a list", "name: [x]\nversion: 1\n", "manifest.yaml: line 1: name is not a text"},
		{"vars not a list", head + "common_deploy_vars: {a: 1}\n", "manifest.yaml: line 3: common_deploy_vars is not a list of variables"},
		{"unknown var key", head + "common_deploy_vars:\n  - {name: a, value: 1}\n", `manifest.yaml: line 4: unknown key "value" of a variable of common_deploy_vars`},
		{"var without name", head + "common_deploy_vars:\n  - {default: 1}\n", "manifest.yaml: a deploy variable has no name"},
		{"bad var name", head + "customer_deploy_vars:\n  - {name: a-b}\n", `manifest.yaml: deploy variable "a-b": the name is not`},
		{"var twice", head + "common_deploy_vars:\n  - {name: a}\nsingle_tenant_deploy_vars:\n  - {name: a}\n", `manifest.yaml: deploy variable "a" is declared twice`},
		{"context var", head + "common_deploy_vars:\n  - {name: tenant}\n", `manifest.yaml: deploy variable "tenant": the fabric sets tenant itself`},
		{"secret not bool", head + "common_deploy_vars:\n  - {name: a, secret: yes}\n", "manifest.yaml: line 4: secret is not true or false"},
		{"artifacts a list", head + "artifacts: [a]\n", "manifest.yaml: line 3: artifacts is not a mapping"},
		{"unknown type", head + "artifacts:\n  widget:\n    - {name: w, file: w.yaml}\n", `manifest.yaml: artifact widget "w": unknown type "widget" (known: stream, dataset, credential,`},
		{"type twice", head + "artifacts:\n  pipeline: []\n  pipeline: []\n", `manifest.yaml: line 5: key "artifacts.pipeline" is given twice`},
		{"unknown artifact key", head + "artifacts:\n  pipeline:\n    - {name: p, file: p.pipeline, owner: me}\n", `manifest.yaml: line 5: unknown key "owner" of a pipeline artifact`},
		{"no artifact name", head + "artifacts:\n  pipeline:\n    - {file: p.pipeline}\n", `manifest.yaml: an artifact of type pipeline (file "p.pipeline") has no name`},
		{"no file", head + "artifacts:\n  pipeline:\n    - {name: p}\n", `manifest.yaml: artifact pipeline "p": no file`},
		{"absolute file", head + "artifacts:\n  pipeline:\n    - {name: p, file: /p.pipeline}\n", `manifest.yaml: artifact pipeline "p": file "/p.pipeline" is an absolute path`},
		{"unclean file", head + "artifacts:\n  pipeline:\n    - {name: p, file: a//p.pipeline}\n", `manifest.yaml: artifact pipeline "p": file "a//p.pipeline" is not a clean relative path`},
		{"dot dot file", head + "artifacts:\n  pipeline:\n    - {name: p, file: ../p.pipeline}\n", `manifest.yaml: artifact pipeline "p": file "../p.pipeline" goes outside the pack`},
		{"bad scope", head + "artifacts:\n  pipeline:\n    - {name: p, file: p.pipeline, scope: global}\n", `manifest.yaml: artifact pipeline "p": unknown scope "global" (known: common, single_tenant, customer)`},
		{"bad policy", head + "artifacts:\n  pipeline:\n    - {name: p, file: p.pipeline, creation_policy: replace}\n", `manifest.yaml: artifact pipeline "p": unknown creation_policy "replace" (known: fail, skip)`},
		{"artifact twice", head + "artifacts:\n  pipeline:\n    - {name: p, file: p.pipeline}\n    - {name: p, file: q.pipeline, scope: common}\n", `manifest.yaml: artifact pipeline "p" is given twice in scope common`},
		{"artifact not a mapping", head + "artifacts:\n  pipeline:\n    - p\n", "manifest.yaml: line 5: an entry of artifacts.pipeline is not a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(tc.yaml))
			if err == nil {
				t.Fatalf("parsed %+v", m)
			}
			if !strings.Contains(err.Error(), tc.error) || !strings.HasPrefix(err.Error(), "manifest.yaml: ") {
				t.Errorf("error %q, want %q", err, tc.error)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
		})
	}
}

func TestParseManifestAccepted(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
	}{
		{"same name in two scopes", "name: x\nversion: 1\nartifacts:\n  pipeline:\n    - {name: p, file: p.pipeline}\n    - {name: p, file: p.pipeline, scope: customer}\n"},
		{"same name of two types", "name: x\nversion: 1\nartifacts:\n  pipeline:\n    - {name: p, file: p.pipeline}\n  blueprint:\n    - {name: p, file: p.yaml}\n"},
		{"empty lists", "name: x\nversion: 1\ncommon_deploy_vars: []\nartifacts: {}\n"},
		{"nulls", "name: x\nversion: 1\ndescription:\ncommon_deploy_vars:\nartifacts:\n"},
		{"aliases", "name: &n x\nversion: 1\ndescription: *n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseManifest([]byte(tc.yaml)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMarshalManifestRoundTrip(t *testing.T) {
	empty := ""
	odd := Manifest{
		Name: "true", Version: "1.10", Description: "a: b # c\nsecond line", Publisher: "'quoted'",
		CommonVars:       []Var{{Name: "n", Default: &empty}, {Name: "port", Default: strPtr("0161")}, {Name: "yes", Default: strPtr("yes"), Secret: true}},
		SingleTenantVars: []Var{{Name: "nul", Default: strPtr("null"), Description: "~"}},
		Artifacts: []Artifact{
			{Type: TypeStream, Name: "123", File: "streams/s 1.yaml", Scope: ScopeCommon, CreationPolicy: PolicySkip},
			{Type: TypeDashGroup, Name: "g: {x}", File: "g.json", Scope: ScopeCustomer, CreationPolicy: PolicyFail},
		},
	}
	for _, m := range []Manifest{sampleManifestValue(t), odd, {Name: "x", Version: "1"}} {
		t.Run(m.Name, func(t *testing.T) {
			data, err := MarshalManifest(m)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseManifest(data)
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if !reflect.DeepEqual(back, m) {
				t.Errorf("round trip:\n%s\ngot  %+v\nwant %+v", data, back, m)
			}
		})
	}
	data, _ := MarshalManifest(sampleManifestValue(t))
	for _, want := range []string{"  blueprint:\n    - {name: web, file: blueprints/web.yaml, scope: single_tenant, creation_policy: skip}\n", "  - {name: api_token, secret: true}\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("marshalled manifest lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "scope: common") || strings.Contains(string(data), "policy: fail") {
		t.Errorf("defaults written:\n%s", data)
	}
	if _, err := MarshalManifest(Manifest{Name: "x"}); err == nil {
		t.Error("a manifest without a version marshalled")
	}
}

func strPtr(s string) *string { return &s }

func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want []int
	}{
		{"1", []int{1}},
		{"1.2.0", []int{1, 2, 0}},
		{"22.11.9", []int{22, 11, 9}},
		{"8.1.0.1", []int{8, 1, 0, 1}},
		{"01.002", []int{1, 2}},
		{"", nil},
		{"v1.0", nil},
		{"1.2.3.4.5", nil},
		{"1..2", nil},
		{"1.2.", nil},
		{".1", nil},
		{"1.a", nil},
		{"1.-2", nil},
		{"1.+2", nil},
		{"1 .2", nil},
		{"1234567890", nil},
	} {
		got, err := ParseVersion(tc.v)
		if (err == nil) != (tc.want != nil) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", tc.v, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.10.0", "1.9.2", 1},
		{"1.9.2", "1.10.0", -1},
		{"1.2.0", "1.2.0", 0},
		{"2", "1.99.99.99", 1},
		{"1.2", "1.2.0", -1},
		{"1.2.1", "1.2", 1},
		{"8.1.0.1", "8.1.0", 1},
		{"01.2", "1.2", -1},
		{"bad", "0", -1},
		{"0", "bad", 1},
		{"bad", "bad", 0},
		{"a", "b", -1},
	} {
		if got := CompareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
