package pack

import (
	"reflect"
	"strings"
	"testing"
)

func TestValues(t *testing.T) {
	m := sampleManifestValue(t)
	ctx := map[string]string{"tenant": "acme", "site": "paris", "other": "left out"}
	for _, tc := range []struct {
		name    string
		scope   string
		inputs  map[string]string
		context map[string]string
		want    map[string]string
		error   string
	}{
		{"defaults and inputs", ScopeCommon, map[string]string{"api_token": "t0k"}, nil,
			map[string]string{"region": "eu-west", "api_token": "t0k"}, ""},
		{"inputs win", ScopeCommon, map[string]string{"api_token": "t", "region": "us-east"}, nil,
			map[string]string{"region": "us-east", "api_token": "t"}, ""},
		{"empty input is a value", ScopeCommon, map[string]string{"api_token": ""}, nil,
			map[string]string{"region": "eu-west", "api_token": ""}, ""},
		{"context", ScopeCommon, map[string]string{"api_token": "t"}, ctx,
			map[string]string{"region": "eu-west", "api_token": "t", "tenant": "acme", "site": "paris"}, ""},
		{"single tenant", ScopeSingleTenant, map[string]string{"api_token": "t"}, nil,
			map[string]string{"region": "eu-west", "api_token": "t", "owner": "ops"}, ""},
		{"customer", ScopeCustomer, map[string]string{"api_token": "t", "customer_name": "Bob", "owner": "ignored"}, map[string]string{"customer_tag": "bob"},
			map[string]string{"region": "eu-west", "api_token": "t", "customer_name": "Bob", "customer_tag": "bob"}, ""},
		{"missing", ScopeCommon, nil, nil, nil,
			"missing deploy variable(s) for scope common: api_token (give them in --inputs)"},
		{"missing, customer", ScopeCustomer, nil, nil, nil,
			"missing deploy variable(s) for scope customer: api_token, customer_name (give them in --inputs)"},
		{"unknown input", ScopeCommon, map[string]string{"api_token": "t", "zone": "z", "regoin": "x"}, nil, nil,
			"--inputs names no deploy variable of pack netops: regoin, zone"},
		{"context var as input", ScopeCommon, map[string]string{"api_token": "t", "tenant": "x"}, nil, nil,
			"--inputs names no deploy variable of pack netops: tenant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Values(tc.scope, tc.inputs, tc.context)
			if tc.error != "" {
				if err == nil || err.Error() != tc.error {
					t.Fatalf("error %v, want %q", err, tc.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("values %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVarsOf(t *testing.T) {
	m := sampleManifestValue(t)
	names := func(vars []Var) (out []string) {
		for _, v := range vars {
			out = append(out, v.Name)
		}
		return out
	}
	for scope, want := range map[string][]string{
		ScopeCommon:       {"region", "api_token"},
		ScopeSingleTenant: {"region", "api_token", "owner"},
		ScopeCustomer:     {"region", "api_token", "customer_name"},
	} {
		if got := names(m.VarsOf(scope)); !reflect.DeepEqual(got, want) {
			t.Errorf("VarsOf(%s) = %q, want %q", scope, got, want)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"{{a}} {{ b }} {{  a  }} {{\tc\t}}", []string{"a", "b", "c"}},
		{"{{ .Values.x }} {{ a | b }} {{ 1x }} { {x} } {{}}", nil},
		{"{{{x}}}", []string{"x"}},
		{"{{ x}}{{y }}{{x}}", []string{"x", "y"}},
		{"", nil},
	} {
		if got := Placeholders([]byte(tc.text)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Placeholders(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	p := New(sampleManifestValue(t), sampleFiles())
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	m := p.Manifest
	values := func(scope string, inputs, ctx map[string]string) map[string]string {
		v, err := m.Values(scope, inputs, ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	inputs := map[string]string{"api_token": "s3cret", "customer_name": "Bob"}
	ctx := map[string]string{"tenant": "acme", "site": "paris", "customer_tag": "bob"}
	for _, tc := range []struct {
		scope string
		want  map[string]string // file -> rendered
	}{
		{ScopeCommon, map[string]string{
			"credentials/snmp.yaml":    "name: snmp-community\ntoken: \"s3cret\"\n",
			"pipelines/hosts.pipeline": "@dm:empty\n--> @dm:addrow region = 'eu-west' & tenant = 'acme'\n",
			"dashboards/overview.yaml": "name: overview\ntitle: Overview of eu-west\n",
		}},
		{ScopeSingleTenant, map[string]string{
			"blueprints/web.yaml": "id: web\nowner: \"ops\"\nsite: paris\n",
		}},
		{ScopeCustomer, map[string]string{
			"dashboards/customer.yaml": "name: customer-view\ntitle: \"Bob (bob)\"\n",
		}},
	} {
		t.Run(tc.scope, func(t *testing.T) {
			out, err := p.Render(tc.scope, values(tc.scope, inputs, ctx))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			var order []string
			for _, r := range out {
				got[r.File] = string(r.Data)
				order = append(order, r.Type)
				if r.Scope != tc.scope {
					t.Errorf("%s: scope %s", r.File, r.Scope)
				}
				if sum, _ := Checksum(r.Type, r.Data); sum != r.Checksum || !strings.HasPrefix(sum, "sha256:") {
					t.Errorf("%s: checksum %s, want %s", r.File, r.Checksum, sum)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rendered %q, want %q", got, tc.want)
			}
			if tc.scope == ScopeCommon && !reflect.DeepEqual(order, []string{TypeCredential, TypePipeline, TypeDashboard}) {
				t.Errorf("order %q", order)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		file   string
		text   string
		values map[string]string
		error  string
	}{
		{"no value", "pipelines/hosts.pipeline", "x {{ region }}", map[string]string{"api_token": "t"}, "pipelines/hosts.pipeline: placeholder {{ region }} has no value"},
		{"context not given", "dashboards/overview.yaml", "t: {{site}}", map[string]string{"region": "r", "api_token": "t", "tenant": "a"}, "dashboards/overview.yaml: placeholder {{ site }} has no value"},
		{"no longer YAML", "dashboards/overview.yaml", "title: {{ region }}\n", map[string]string{"region": "[a", "api_token": "t", "tenant": "a"}, "dashboards/overview.yaml: rendered, artifact dashboard \"overview\" is not a valid YAML or JSON document: yaml: "},
		{"JSON broken", "dashboards/overview.yaml", `{"title": "{{ region }}"}`, map[string]string{"region": `"`, "api_token": "t", "tenant": "a"}, "dashboards/overview.yaml: rendered, artifact dashboard \"overview\" is not a valid YAML or JSON document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := sampleFiles()
			files[tc.file] = []byte(tc.text)
			_, err := New(p.Manifest, files).Render(ScopeCommon, tc.values)
			if err == nil || !strings.HasPrefix(err.Error(), tc.error) {
				t.Fatalf("error %v, want %q", err, tc.error)
			}
		})
	}
}

func TestCheckPlaceholders(t *testing.T) {
	files := sampleFiles()
	files["dashboards/overview.yaml"] = []byte("title: {{ owner }}")
	err := New(sampleManifestValue(t), files).Check()
	want := `dashboards/overview.yaml: placeholder {{ owner }} names no deploy variable of scope common (artifact dashboard "overview")`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	// A dataset's braces are data.
	m := Manifest{Name: "d", Version: "1", Artifacts: []Artifact{{Type: TypeDataset, Name: "d", File: "d.csv"}}}
	p := New(m, map[string][]byte{"d.csv": []byte("a,b\n{{ x }},1\n")})
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	out, err := p.Render(ScopeCommon, nil)
	if err != nil || len(out) != 1 || string(out[0].Data) != "a,b\n{{ x }},1\n" {
		t.Fatalf("render %v %v", out, err)
	}
}
