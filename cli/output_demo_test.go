package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputDemoBackup: a backup of an empty tenant; two backups (JSON,
// then YAML) around one changed dashboard and one added group, compared
// every way diff can; and the bad input of both commands.
func TestOutputDemoBackup(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "demo-backup", "demo-diff")
	dir := s.vars["DIR"]
	write(t, dir, "ops.yaml", "name: ops\nlabel: Operations\ndashboard_sections:\n  - title: CPU\n    widgets:\n      - {widget_type: table, title: hosts, stream: hosts}\n")
	write(t, dir, "ops2.yaml", "name: ops\nlabel: Operations, v2\ndashboard_sections:\n  - title: CPU\n    widgets:\n      - {widget_type: table, title: all hosts, stream: hosts}\n")
	write(t, dir, "net.yaml", "name: net\nlabel: Network\n")
	write(t, dir, "stack.yaml", "name: web\ncomponents:\n  - {name: lb, type: haproxy}\n")
	write(t, dir, "unused-stack.yaml", "name: unused\ncomponents:\n  - {name: db, type: postgres}\n")
	write(t, dir, "probes.yaml", "name: probes\nstack: web\nprobes:\n  - {name: home, type: http}\n")
	write(t, dir, "group.json", `{"name": "noc", "dashboardList": [{"name": "ops"}, {"name": "net"}]}`)
	write(t, dir, "full/x.txt", "x")
	write(t, dir, "hot.yaml", hotHostsYAML)
	s.steps(
		step{cmd: "demo backup --to_dir $DIR/empty"},
		step{cmd: "dashboard add --file $DIR/ops.yaml", setup: true},
		step{cmd: "dashboard add --file $DIR/net.yaml", setup: true},
		step{cmd: "stack add --file $DIR/stack.yaml", setup: true},
		step{cmd: "stack add --file $DIR/unused-stack.yaml", setup: true},
		step{cmd: "synthetics add --file $DIR/probes.yaml", setup: true},
		step{cmd: "pipeline add --file $DIR/hot.yaml", setup: true},
		step{cmd: "demo backup --to_dir $DIR/monday"},
		step{cmd: "dashboard add --file $DIR/ops2.yaml --overwrite", setup: true},
		step{cmd: "dashgroup add --file $DIR/group.json", setup: true},
		step{cmd: "demo backup --to_dir $DIR/tuesday --yaml"},
		step{cmd: "demo backup --to_dir $DIR/full", code: 1},
		step{cmd: "demo backup --to_dir $DIR/no/such/dir", code: 1},

		step{cmd: "demo diff --first $DIR/monday --second $DIR/tuesday"},
		step{cmd: "demo diff --first $DIR/monday --second $DIR/tuesday --no_ident"},
		step{cmd: "demo diff --first $DIR/monday --second $DIR/tuesday --details --no_ident"},
		step{cmd: "demo diff --first $DIR/monday --second $DIR/tuesday --side --opts d"},
		step{cmd: "demo diff --first $DIR/monday --second $DIR/tuesday --opts st,syn"},
		step{cmd: "demo diff --first $DIR/empty --second $DIR/tuesday"},
		step{cmd: "demo diff --first $DIR/empty --second $DIR/empty"},
		step{cmd: "demo diff --first $DIR/monday --second $DIR/tuesday --opts zz", code: 2},
		step{cmd: "demo diff --first $DIR/monday --second $DIR/tuesday --opts ps,bp,ep,map,pstreams"},
		step{cmd: "demo diff --first $DIR/monday --second $DIR/none", code: 1},
		step{cmd: "demo diff --first $DIR/monday --second $DIR/full", code: 1},
	)
	// Nothing half written: a refused backup leaves no partial folder.
	if left, _ := filepath.Glob(filepath.Join(dir, ".*partial*")); len(left) > 0 {
		t.Errorf("partial backups left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "tuesday", "dashboards", "ops.yaml")); err != nil {
		t.Errorf("the YAML backup has no ops.yaml: %v", err)
	}
	s.unreachable("demo backup --to_dir $DIR/later")
}
