package cli

import (
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputSchedules: schedules added (and refused: a name twice, a bad
// cron, an unknown pipeline, a bad time zone, status or filter), listed,
// shown with their next runs, paused, edited and deleted.
func TestOutputSchedules(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	s := newSession(t, "schedule-add", "schedule-list", "schedule-info", "schedule-update-status", "schedule-edit", "schedule-delete")
	dir := s.vars["DIR"]
	write(t, dir, "tick.pipeline", "@dm:empty\n")
	s.steps(
		step{cmd: "pipeline add --file $DIR/tick.pipeline --name tick", setup: true},
		step{cmd: "schedule-list"},
		step{cmd: "schedule-list --all", code: 2},
		step{cmd: "schedule-add --name every --pipeline tick --cron '* * * * *'"},
		step{cmd: "schedule-add --name every --pipeline tick --cron '* * * * *'", code: 1},
		step{cmd: "schedule-add --name paris --pipeline tick --cron '0 2 * * 1-5' --timezone Europe/Paris --site 'loc.*' --description 'Weekday report' --status paused"},
		step{cmd: "schedule-add --name bad --pipeline tick --cron '* * *'", code: 1},
		step{cmd: "schedule-add --name bad --pipeline tick --cron '61 * * * *'", code: 1},
		step{cmd: "schedule-add --name bad --pipeline nope --cron '* * * * *'", code: 1},
		step{cmd: "schedule-add --name bad --pipeline tick --cron '* * * * *' --timezone Mars/Olympus", code: 1},
		step{cmd: "schedule-add --name bad --pipeline tick --cron '* * * * *' --timezone ../../etc/passwd", code: 1},
		step{cmd: "schedule-add --name bad --pipeline tick --cron '* * * * *' --status sleeping", code: 2},
		step{cmd: "schedule-add --name bad --pipeline tick --cron '* * * * *' --rfilter 'cpu_count >>= 2'", code: 1},
		step{cmd: "schedule-add --name bad --pipeline tick --cron '* * * * *' --site '(loc'", code: 1},
		step{cmd: "schedule-add --name bad --pipeline tick", code: 2},
		step{cmd: "schedule-list"},
		step{cmd: "schedule-list --json"},
		step{cmd: "schedule-info --name paris"},
		step{cmd: "schedule-info --name every --next 2 --json"},
		step{cmd: "schedule-info --name nope", code: 1},
		step{cmd: "schedule-update-status --name paris --status enabled"},
		step{cmd: "schedule-update-status --name paris --status enabled"},
		step{cmd: "schedule-update-status --name nope --status paused", code: 1},
		step{cmd: "schedule-info --name paris --next 3"},
		step{cmd: "schedule-edit --name every --cron '*/5 * * * *' --description 'Every five minutes'"},
		step{cmd: "schedule-edit --name every --cron '* * * 13 *'", code: 1},
		step{cmd: "schedule-edit --name every", code: 1},
		step{cmd: "schedule-edit --name nope --cron '* * * * *'", code: 1},
		step{cmd: "schedule-edit --name paris --site ''"},
		step{cmd: "schedule-list"},
		step{cmd: "schedule-delete --name every"},
		step{cmd: "schedule-delete --name every", code: 1},
		step{cmd: "schedule-list"},
	)
}

// TestOutputDeploymentController: a deployment's service runs (waited
// for by a workflow), its svcs-status and activity, an action started on
// demand, and the errors of each.
func TestOutputDeploymentController(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	s := newSession(t, "deployment-svcs-status", "deployment-activity", "deployment-action")
	dir := s.vars["DIR"]
	write(t, dir, "svc.pipeline", "@dm:read-stream name = 'events' & follow = true\n")
	write(t, dir, "tick.pipeline", "@dm:empty\n")
	write(t, dir, "web.yaml", `id: web
name: Web
service_pipelines:
  - {name: svc, label: readers, instances: 1, scaling_policy: {min_instances: 1, max_instances: 4}}
action_pipelines:
  - {name: tick, label: refresh}
`)
	write(t, dir, "wait.star", "rows = deployment.wait('web', timeout = 20)\nprint(rows[0]['label'], rows[0]['num_jobs'])\n")
	s.steps(
		step{cmd: "pstream add --name events", setup: true},
		step{cmd: "pipeline add --file $DIR/svc.pipeline --name svc", setup: true},
		step{cmd: "pipeline add --file $DIR/tick.pipeline --name tick", setup: true},
		step{cmd: "deployment activity"},
		step{cmd: "deployment add --file $DIR/web.yaml", setup: true},
		step{cmd: "run $DIR/wait.star", setup: true},
		step{cmd: "deployment svcs-status --id web"},
		step{cmd: "deployment svcs-status --id web --json"},
		step{cmd: "deployment svcs-status --id nope", code: 1},
		step{cmd: "deployment svcs-status", code: 2},
		step{cmd: "deployment action --id web --name refresh"},
		step{cmd: "deployment action --id web --name nope", code: 1},
		step{cmd: "deployment action --id nope --name refresh", code: 1},
		step{cmd: "deployment activity --id web"},
		step{cmd: "deployment activity --id web --max 1 --json"},
		step{cmd: "deployment activity --id nope", code: 1},
	)
}
