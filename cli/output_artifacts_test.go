package cli

import (
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputArtifacts: alert rulesets, dashboards and dashboard groups,
// each through add, get, list, delete (and enable, disable), with the bad
// input of each: malformed YAML, a schema violation, a bad CFXQL
// condition, a duplicate without --overwrite, a missing name, a group
// naming a missing dashboard.
func TestOutputArtifacts(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "alert-rules-add", "alert-rules-get", "alert-rules-list", "alert-rules-delete",
		"dashboard-add", "dashboard-get", "dashboard-list", "dashboard-delete", "dashboard-enable", "dashboard-disable",
		"dashgroup-add", "dashgroup-get", "dashgroup-list", "dashgroup-delete", "dashgroup-enable", "dashgroup-disable")
	dir := s.vars["DIR"]
	write(t, dir, "rules.yaml", `name: cpu-rules
description: CPU alerts
realtime-alerts:
  - name: cpu-high
    description: CPU over 90
    groupBy: host
    condition: cpu > 90 and region is 'north'
    severity: CRITICAL
    suppress-for-minutes: 10
aggregate-alerts:
  - name: cpu-avg
    condition: avg_cpu > 50
    severity: MAJOR
`)
	write(t, dir, "bad-condition.yaml", `name: bad
realtime-alerts:
  - name: r1
    condition: cpu >> 90
    severity: CRITICAL
`)
	write(t, dir, "bad-severity.yaml", "name: bad\nrealtime-alerts:\n  - name: r1\n    condition: cpu > 1\n    severity: LOUD\n")
	write(t, dir, "malformed.yaml", "name: x\n  label: [unclosed\n")
	write(t, dir, "ops.yaml", `name: ops
label: Operations
description: the ops board
dashboard_style: tabbed
dashboard_sections:
  - title: CPU
    widgets:
      - widget_type: shaded_chart
        title: CPU
        stream: cpu-metrics
        duration_hours: 24
`)
	write(t, dir, "no-type.yaml", "name: x\ndashboard_sections:\n  - widgets:\n      - title: no type\n")
	write(t, dir, "group.json", `{"name": "ops-group", "label": "Ops", "dashboardList": [{"id": "1", "name": "ops"}], "users": "ann", "description": "ops boards"}`)
	write(t, dir, "bad-group.json", `{"name": "g2", "dashboardList": [{"name": "ops"}, {"name": "nope"}]}`)

	s.steps(
		step{cmd: "alert-rules add --file $DIR/rules.yaml"},
		step{cmd: "alert-rules add --file $DIR/rules.yaml", code: 1},
		step{cmd: "alert-rules add --file $DIR/rules.yaml --overwrite"},
		step{cmd: "alert-rules add --file $DIR/bad-condition.yaml", code: 1},
		step{cmd: "alert-rules add --file $DIR/bad-severity.yaml", code: 1},
		step{cmd: "alert-rules add --file $DIR/malformed.yaml", code: 1},
		step{cmd: "alert-rules add --file $DIR/none.yaml", code: 1},
		step{cmd: "alert-rules get --name cpu-rules"},
		step{cmd: "alert-rules get --name nope", code: 1},
		step{cmd: "alert-rules list"},
		step{cmd: "alert-rules list --json"},

		step{cmd: "dashboard add --file $DIR/ops.yaml"},
		step{cmd: "dashboard add --file $DIR/ops.yaml", code: 1},
		step{cmd: "dashboard add --file $DIR/no-type.yaml", code: 1},
		step{cmd: "dashboard add --file $DIR/malformed.yaml", code: 1},
		step{cmd: "dashboard get --name ops"},
		step{cmd: "dashboard get --name nope", code: 1},
		step{cmd: "dashboard list"},
		step{cmd: "dashboard disable --name ops"},
		step{cmd: "dashboard disable --name ops"},
		step{cmd: "dashboard enable --name ops"},
		step{cmd: "dashboard enable --name nope", code: 1},
		step{cmd: "dashboard disable --name nope", code: 1},
		step{cmd: "dashboard list --json"},

		step{cmd: "dashgroup add --file $DIR/group.json"},
		step{cmd: "dashgroup add --file $DIR/bad-group.json", code: 1},
		step{cmd: "dashgroup add --file $DIR/group.json", code: 1},
		step{cmd: "dashgroup get --name ops-group"},
		step{cmd: "dashgroup get --name nope", code: 1},
		step{cmd: "dashgroup list"},
		step{cmd: "dashgroup disable --name ops-group"},
		step{cmd: "dashgroup disable --name nope", code: 1},
		step{cmd: "dashgroup enable --name ops-group"},
		step{cmd: "dashgroup enable --name nope", code: 1},
		step{cmd: "dashgroup delete --name ops-group"},
		step{cmd: "dashgroup delete --name ops-group", code: 1},
		step{cmd: "dashgroup list"},

		step{cmd: "dashboard delete --name ops"},
		step{cmd: "dashboard delete --name ops", code: 1},
		step{cmd: "alert-rules delete --name cpu-rules"},
		step{cmd: "alert-rules delete --name cpu-rules", code: 1},
	)
	s.unreachable("alert-rules list", "dashboard list", "dashgroup list")
}
