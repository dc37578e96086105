package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// forwardYAML is a pipeline that reads one stream and writes another: a
// deployment of it maps both streams.
const forwardYAML = `name: forward
description: copies the high events into alerts
data:
  name: forward
  sequence:
    - tag: "@dm:read-stream"
      query: name = 'events'
    - tag: "*dm:filter"
      query: severity = 'high'
    - tag: "@dm:write-stream"
      query: name = 'alerts'
`

// TestOutputDemoSetup: a tenant with every kind of a backup is backed
// up, verified against and set up into an empty tenant (project b), whose
// backup then compares identical to the first; a hand-made directory
// with a webhook and missing folders; and the bad input of setup.
func TestOutputDemoSetup(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer}})
	s := newSession(t, "demo-setup")
	dir := s.vars["DIR"]
	write(t, dir, "ops.yaml", "name: ops\nlabel: Operations\ndashboard_sections:\n  - title: CPU\n    widgets:\n      - {widget_type: table, title: hosts, stream: hosts}\n")
	write(t, dir, "net.yaml", "name: net\nlabel: Network\n")
	write(t, dir, "stack.yaml", "name: web\ncomponents:\n  - {name: lb, type: haproxy, host: 127.0.0.1, port: 8080}\n")
	write(t, dir, "probes.yaml", "name: probes\nstack: web\nprobes:\n  - {name: home, type: http, target: 'http://127.0.0.1:8080/'}\n")
	write(t, dir, "group.json", `{"name": "noc", "dashboardList": [{"name": "ops"}, {"name": "net"}]}`)
	write(t, dir, "forward.yaml", forwardYAML)
	write(t, dir, "dep.yaml", "id: fwd-service\nname: Forwarder\nenabled: false\nservice_pipelines:\n  - {name: forward, version: '*', site: '.*'}\n")
	write(t, dir, "ep.yaml", "name: syslog-in\ntype: syslog_udp_go\nport: 0\nstream: events\nenabled: false\n")

	// A hand-made demo: settings with a webhook, dashboards and a
	// pipeline in the text form, and no other folder.
	write(t, dir, "demo/settings.json", `{"description": "the retail demo", "webhook": {"name": "alerts-in", "stream": "alerts", "path": "/alerts"}}`)
	write(t, dir, "demo/dashboards/retail.yaml", "name: retail\nlabel: Retail\n")
	write(t, dir, "demo/pipelines/retail-feed.pipeline", "@dm:empty\n  --> @dm:addrow store = 'lon'\n")
	write(t, dir, "demo/pipelines/retail-extra.pipeline", "@dm:empty\n")
	write(t, dir, "demo/datasets/stores.csv", "store,city\nlon,London\npar,Paris\n")
	write(t, dir, "demo/datasets/sales.jsonl", "{\"store\": \"lon\", \"amount\": 3}\n")
	// A dataset file that does not parse: nothing is set up.
	write(t, dir, "baddata/settings.json", `{}`)
	write(t, dir, "baddata/dashboards/bd.yaml", "name: bd\nlabel: Bad data\n")
	write(t, dir, "baddata/datasets/broken.jsonl", "{\"a\": 1}\n{not json\n")
	// Bad directories.
	write(t, dir, "nosettings/dashboards/x.yaml", "name: x\n")
	write(t, dir, "typo/settings.json", `{"webhok": {"name": "w"}}`)
	write(t, dir, "badgroup/settings.json", `{}`)
	write(t, dir, "badgroup/dashboards/x.yaml", "name: x\n")
	write(t, dir, "badgroup/dashboard_groups/g.json", `{"name": "g", "dashboardList": [{"name": "nosuch"}]}`)
	// A version tenant b holds (after the setup below) with other content.
	write(t, dir, "conflict/settings.json", `{}`)
	write(t, dir, "conflict/pipelines/forward.json", `{"name": "forward", "version": "`+today()+`_1", "description": "changed", "data": {"sequence": [{"tag": "@dm:empty"}]}}`)

	s.steps(
		step{cmd: "project add --name b --tenant b", setup: true},
		step{cmd: "dashboard add --file $DIR/ops.yaml", setup: true},
		step{cmd: "dashboard add --file $DIR/net.yaml", setup: true},
		step{cmd: "dashgroup add --file $DIR/group.json", setup: true},
		step{cmd: "stack add --file $DIR/stack.yaml", setup: true},
		step{cmd: "synthetics add --file $DIR/probes.yaml", setup: true},
		step{cmd: "pipeline add --file $DIR/forward.yaml", setup: true},
		step{cmd: "pipeline add --file $DIR/forward.yaml --pipetype Draft", setup: true},
		step{cmd: "pstream add --name events --retention-hours 24", setup: true},
		step{cmd: "pstream add --name alerts --max-size-mb 10 --description 'the alerts'", setup: true},
		step{cmd: "deployment add --file $DIR/dep.yaml", setup: true},
		step{cmd: "event-endpoint add --file $DIR/ep.yaml", setup: true},
		step{cmd: "demo backup --to_dir $DIR/a", setup: true},

		// Into tenant a itself: nothing to do. Into the empty tenant b:
		// verified first (nothing changes), then set up.
		step{cmd: "demo setup --dir $DIR/a --ip 127.0.0.1 --verify_only"},
		step{cmd: "demo setup --dir $DIR/a --ip b --verify_only"},
		step{cmd: "demo setup --dir $DIR/a --ip b"},
		step{cmd: "demo setup --dir $DIR/a --ip b"},
		step{do: func() { f.UseTenant(t, "b") }},
		step{cmd: "demo backup --to_dir $DIR/b --yaml", setup: true},
		step{cmd: "demo diff --first $DIR/a --second $DIR/b --no_ident", key: "demo-setup"},
		step{do: func() { f.UseTenant(t, "a") }},
		step{cmd: "demo setup --dir $DIR/demo --ip 127.0.0.1 --port 8443 --protocol http --pipelines retail-feed"},
		step{cmd: "demo setup --dir $DIR/demo --ip 127.0.0.1 --port 8443 --protocol http"},
		step{cmd: "event-endpoint get --name alerts-in", key: "demo-setup"},
		step{cmd: "dataset list", key: "demo-setup"},
		step{cmd: "demo setup --dir $DIR/baddata --ip 127.0.0.1", code: 1},
		step{cmd: "dashboard get --name bd", key: "demo-setup", code: 1},

		step{cmd: "demo setup --dir $DIR/nosettings --ip b", code: 1},
		step{cmd: "demo setup --dir $DIR/none --ip b", code: 1},
		step{cmd: "demo setup --dir $DIR/typo --ip b", code: 1},
		step{cmd: "demo setup --dir $DIR/badgroup --ip b", code: 1},
		step{cmd: "demo setup --dir $DIR/demo --ip b --pipelines nosuch", code: 1},
		step{cmd: "demo setup --dir $DIR/conflict --ip b", code: 1},
		step{cmd: "demo setup --dir $DIR/demo --ip 10.9.9.9", code: 1},
		step{cmd: "demo setup --dir $DIR/demo --ip b --port 0", code: 2},
		step{cmd: "demo setup --dir $DIR/demo --ip b --protocol ftp", code: 2},
		step{cmd: "demo setup --dir $DIR/demo", code: 2},
	)
	// The refused setup changed nothing: tenant b has no dashboard x.
	f.UseTenant(t, "b")
	out, _, _ := run(t, "", "dashboard", "list")
	if strings.Contains(out, "\nx ") {
		t.Errorf("a refused setup added dashboard x:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "settings.json")); err != nil {
		t.Errorf("a backup has no settings.json: %v", err)
	}
	// Datasets go to the fabric --ip names (a project), not to the one in
	// use: set up from tenant a into tenant b.
	f.UseTenant(t, "a")
	if _, errOut, code := run(t, "", "demo", "setup", "--dir", filepath.Join(dir, "demo"), "--ip", "b", "--port", "8444", "--protocol", "http"); code != 0 {
		t.Fatalf("demo setup into b: exit %d: %s", code, errOut)
	}
	f.UseTenant(t, "b")
	if out, _, _ := run(t, "", "dataset", "list", "--json"); !strings.Contains(out, `"stores"`) || !strings.Contains(out, `"sales"`) {
		t.Errorf("tenant b lacks the demo's datasets:\n%s", out)
	}
}
