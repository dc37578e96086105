package cli

import (
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputDeployments: deployments added (and refused: bad YAML, a bad
// cron, an unknown pipeline, a label twice, a bad site regex), listed
// with their audit's counts, audited (a missing version, an unmatched
// site, a missing stream), their dependencies and map, enabled and
// disabled (a no-op refused), deleted.
func TestOutputDeployments(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	s := newSession(t, "deployment-add", "deployment-status", "deployment-audit-report", "deployment-dependencies",
		"deployment-map", "deployment-enable", "deployment-disable", "deployment-delete")
	dir := s.vars["DIR"]
	write(t, dir, "alerts.pipeline", "@dm:read-stream name = 'events' --> *dm:filter severity is 'err' --> @dm:write-stream name = 'alerts' --> @dm:save name = 'last-alerts'\n")
	write(t, dir, "report.pipeline", "@dm:recall name = 'last-alerts' --> @dm:head n = 10\n")
	write(t, dir, "bp.yaml", `id: syslog-service
name: Syslog alerting
version: 1.0
category: ingestion
description: Keeps the severe events in an alerts stream
type: Service
service_pipelines:
  - name: alerts
    label: alerts
    version: "*"
    site: loc.*
    instances: 2
    scaling_policy: {min_instances: 1, max_instances: 3}
scheduled_pipelines:
  - name: report
    label: nightly
    version: "2020_01_01_1"
    site: elsewhere
    cron_expression: "0 2 * * *"
action_pipelines:
  - name: report
    label: on-demand
`)
	write(t, dir, "small.yaml", "id: small\nname: Small\nenabled: false\nservice_pipelines:\n  - name: report\n")
	write(t, dir, "badyaml.yaml", "id: x\nname: [unclosed\n")
	write(t, dir, "badcron.yaml", "id: x\nname: x\nscheduled_pipelines:\n  - {name: report, cron_expression: '0 25 * * *'}\n")
	write(t, dir, "unknown.yaml", "id: x\nname: x\nservice_pipelines:\n  - {name: report}\n  - {name: nope, label: n}\n")
	write(t, dir, "twice.yaml", "id: x\nname: x\nservice_pipelines:\n  - {name: report, label: a}\n  - {name: alerts, label: a}\n")
	write(t, dir, "badsite.yaml", "id: x\nname: x\nservice_pipelines:\n  - {name: report, site: '(local'}\n")
	write(t, dir, "unquoted.yaml", "id: x\nname: x\nservice_pipelines:\n  - {name: report, version: 2020_01_01_1}\n")
	write(t, dir, "negative.yaml", "id: x\nname: x\nservice_pipelines:\n  - {name: report, instances: -1}\n")
	s.steps(
		step{cmd: "pipeline add --file $DIR/alerts.pipeline --name alerts", setup: true},
		step{cmd: "pipeline add --file $DIR/report.pipeline --name report", setup: true},
		step{cmd: "deployment status"},
		step{cmd: "deployment add --file $DIR/bp.yaml"},
		step{cmd: "deployment add --file $DIR/bp.yaml", code: 1},
		step{cmd: "deployment add --file $DIR/bp.yaml --overwrite"},
		step{cmd: "deployment add --file $DIR/small.yaml"},
		step{cmd: "deployment add --file $DIR/badyaml.yaml", code: 1},
		step{cmd: "deployment add --file $DIR/badcron.yaml", code: 1},
		step{cmd: "deployment add --file $DIR/unknown.yaml", code: 1},
		step{cmd: "deployment add --file $DIR/twice.yaml", code: 1},
		step{cmd: "deployment add --file $DIR/badsite.yaml", code: 1},
		step{cmd: "deployment add --file $DIR/negative.yaml", code: 1},
		step{cmd: "deployment add --file $DIR/unquoted.yaml", code: 1},
		step{cmd: "deployment add", code: 2},
		step{cmd: "deployment status"},
		step{cmd: "deployment status --json"},
		step{cmd: "deployment status --all", code: 2},
		step{cmd: "deployment audit-report --id syslog-service"},
		step{cmd: "deployment audit-report --id small --json"},
		step{cmd: "deployment audit-report --id nope", code: 1},
		step{cmd: "deployment dependencies --id syslog-service"},
		step{cmd: "deployment dependencies --id small --json"},
		step{cmd: "deployment dependencies --id nope", code: 1},
		step{cmd: "deployment map --id syslog-service"},
		step{cmd: "deployment map --id nope", code: 1},
		step{cmd: "deployment map --id syslog-service --svg $DIR/map.svg"},
		step{cmd: "deployment map --id syslog-service --svg $DIR/all.svg --all"},
		step{cmd: "deployment map --id syslog-service --svg $DIR/map.png", code: 2},
		step{cmd: "deployment map --id syslog-service --all", code: 2},
		step{cmd: "deployment map --id nope --svg $DIR/nope.svg", code: 1},
		step{cmd: "deployment map --id syslog-service --svg $DIR/no/such/dir/map.svg", code: 1},
		step{cmd: "deployment disable --id syslog-service"},
		step{cmd: "deployment disable --id syslog-service", code: 1},
		step{cmd: "deployment enable --id syslog-service"},
		step{cmd: "deployment enable --id syslog-service", code: 1},
		step{cmd: "deployment enable --id nope", code: 1},
		step{cmd: "deployment delete --id small"},
		step{cmd: "deployment delete --id small", code: 1},
		step{cmd: "deployment status"},
	)
}
