package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// TestTypesMatchAPI: the protocol's list of pod types (the shell's) and
// the pods' registrations name the same types, each once, in the same
// order; a type added to one and not the other fails here.
func TestTypesMatchAPI(t *testing.T) {
	for _, name := range api.PodTypes {
		if _, ok := Lookup(name); !ok {
			t.Errorf("api.PodTypes has %q, which no registration in runner's types has", name)
		}
	}
	seen := map[string]bool{}
	for _, typ := range types {
		if seen[typ.Name] {
			t.Errorf("pod type %q registered twice", typ.Name)
		}
		seen[typ.Name] = true
		if !slices.Contains(api.PodTypes, typ.Name) {
			t.Errorf("pod type %q is registered but not in api.PodTypes (the shell would not know it)", typ.Name)
		}
	}
	if !slices.Equal(Names(), api.PodTypes) {
		t.Errorf("registered types %v, api.PodTypes %v: want the same order", Names(), api.PodTypes)
	}
}

// TestTypesWellFormed: every registration serves, has a category, and
// depends only on registered types other than itself.
func TestTypesWellFormed(t *testing.T) {
	for _, typ := range types {
		if typ.Serve == nil {
			t.Errorf("%s: no Serve", typ.Name)
		}
		if typ.Category != api.CategoryInfra && typ.Category != api.CategoryApp {
			t.Errorf("%s: category %q", typ.Name, typ.Category)
		}
		for _, d := range typ.Dependencies {
			if _, ok := Lookup(d); !ok || d == typ.Name {
				t.Errorf("%s: dependency %q", typ.Name, d)
			}
		}
	}
}

func TestParsePods(t *testing.T) {
	for _, c := range []struct {
		list string
		want []string
		err  string
	}{
		{list: "worker", want: []string{api.Worker}},
		{list: " api-server, scheduler ,worker,worker,", want: []string{api.APIServer, api.Scheduler, api.Worker, api.Worker}},
		{list: "graphdb,event-gateway", want: []string{api.GraphDB, api.EventGateway}},
		{list: "", err: "no pod types given"},
		{list: " , ", err: "no pod types given"},
		{list: "worker,agent", err: `unknown pod type "agent" (known: api-server, scheduler, worker, event-gateway, graphdb, portal)`},
	} {
		got, err := ParsePods(c.list)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParsePods(%q): error %v, want %q", c.list, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParsePods(%q) = %v, %v; want %v", c.list, got, err, c.want)
		}
	}
}

func TestLocalPods(t *testing.T) {
	for _, c := range []struct {
		workers int
		want    string
	}{
		{0, "api-server scheduler event-gateway graphdb portal"},
		{1, "api-server scheduler worker event-gateway graphdb portal"},
		{3, "api-server scheduler worker worker worker event-gateway graphdb portal"},
	} {
		if got := strings.Join(LocalPods(c.workers), " "); got != c.want {
			t.Errorf("LocalPods(%d) = %s, want %s", c.workers, got, c.want)
		}
	}
}

// TestPrepareLocal: a tenant whose graph database is the user's runs no
// graph pod and points at the user's; one without gets a graph database
// of its own under the fabric's directory; pods without a graph pod are
// left alone.
func TestPrepareLocal(t *testing.T) {
	user := bus.GraphDBConfig{URL: "http://db.example:8529", User: "u", Password: "p"}
	for _, c := range []struct {
		name     string
		pods     []string
		local    Local
		wantPods []string
		wantURL  string // prefix
	}{
		{"user's", []string{api.Worker, api.GraphDB}, Local{UserGraphDB: user}, []string{api.Worker}, user.URL},
		{"embedded", []string{api.Worker, api.GraphDB}, Local{}, []string{api.Worker, api.GraphDB}, "http://127.0.0.1:"},
		{"none", []string{api.Worker}, Local{UserGraphDB: user}, []string{api.Worker}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.local.Dir = t.TempDir()
			o := Options{Config: &bus.Config{Tenant: "a"}, Pods: c.pods}
			if err := PrepareLocal(&o, c.local); err != nil {
				t.Fatal(err)
			}
			if o.GraphDB.Reserved != nil {
				t.Cleanup(o.GraphDB.Reserved.Release)
			}
			if !slices.Equal(o.Pods, c.wantPods) {
				t.Errorf("pods %v, want %v", o.Pods, c.wantPods)
			}
			if !strings.HasPrefix(o.Config.GraphDB.URL, c.wantURL) || (c.wantURL == "") != (o.Config.GraphDB.URL == "") {
				t.Errorf("graphdb URL %q, want %q...", o.Config.GraphDB.URL, c.wantURL)
			}
		})
	}
}
