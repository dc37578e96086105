package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// TestOutputProjects: a project links a local tenant or another fabric's
// network configuration; use switches the client (a dataset added in one
// tenant is not in the other), delete of the project in use switches back
// to the default, and bad input (an unknown tenant, both or neither of
// --tenant and --config, a malformed configuration, a bad name) is one
// line and exit 1.
func TestOutputProjects(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer}})
	t.Setenv("FABRIC_NETWORK_CONFIG", "")
	if err := f.Configs["a"].Save(filepath.Join(f.Home, bus.ConfigFileName)); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, "project-add", "project-get", "project-list", "project-use", "project-delete")
	dir := s.vars["DIR"]
	if err := f.Configs["b"].Save(filepath.Join(dir, "b.json")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "bad.json", `{"tenant": "x", "nats": {"urls": [}`)
	write(t, dir, "rows.csv", "x\n1\n")
	s.steps(
		step{cmd: "project list"},
		step{cmd: "project add --name lab --tenant b --description 'tenant b, here'"},
		step{cmd: "project add --name lab --tenant b", code: 1},
		step{cmd: "project add --name other --tenant nope", code: 1},
		step{cmd: "project add --name other", code: 1},
		step{cmd: "project add --name other --tenant b --config $DIR/b.json", code: 1},
		step{cmd: "project add --name other --config $DIR/bad.json", code: 1},
		step{cmd: "project add --name 'no good' --tenant b", code: 1},
		step{cmd: "project add --name remote-b --config $DIR/b.json"},
		step{cmd: "project get --name remote-b"},
		step{cmd: "project get --name nope", code: 1},
		step{cmd: "project use --name lab"},
		step{cmd: "dataset add --name only-in-b --file $DIR/rows.csv", setup: true},
		step{cmd: "project list"},
		step{cmd: "project use --default"},
		step{cmd: "project use", code: 2},
		step{cmd: "project use --name nope", code: 1},
	)
	if out := s.setup("", "dataset list --json"); out != "[]\n" {
		t.Fatalf("tenant a sees tenant b's dataset: %s", out)
	}
	s.steps(
		step{cmd: "project use --name remote-b"},
		step{cmd: "project delete --name remote-b"},
		step{cmd: "project delete --name remote-b", code: 1},
		step{cmd: "project list --json"},
	)
	if _, err := os.Stat(filepath.Join(f.Home, "projects", "remote-b")); !os.IsNotExist(err) {
		t.Errorf("the deleted project's files are left: %v", err)
	}
	if out := s.setup("", "dataset list --json"); out != "[]\n" {
		t.Fatalf("deleting the project in use left the client on it: %s", out)
	}
	// A record broken by hand is named.
	write(t, filepath.Join(f.Home, "projects", "lab"), "project.json", "{broken")
	s.steps(step{cmd: "project list", code: 1})
}
