package cli

import (
	"encoding/json"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputPipelinePublish: a draft version is published and becomes
// the one a deployment's version "*" runs and published-run starts;
// drafts are passed over; and the bad input of both commands.
func TestOutputPipelinePublish(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	s := newSession(t, "pipeline-publish", "pipeline-published-run")
	dir := s.vars["DIR"]
	s.vars["V1"], s.vars["V2"] = today()+"_1", today()+"_2"
	write(t, dir, "hot.yaml", hotHostsYAML)
	write(t, dir, "draft.yaml", "name: drafty\ndata:\n  sequence:\n    - tag: '@dm:empty'\n")
	write(t, dir, "dep.yaml", "id: hot\nname: Hot hosts\nenabled: false\nservice_pipelines:\n  - {name: hot-hosts, version: '*'}\n")
	// started checks a published-run's start response and that its job
	// runs version v.
	started := func(line, v string) {
		s.runThen(0, "", s.expand(line), func(out, errOut string) {
			var resp api.StartResponse
			if err := json.Unmarshal([]byte(out), &resp); err != nil || resp.JobID == "" {
				t.Fatalf("published-run: %v\n%s%s", err, out, errOut)
			}
			s.sc.Literal(resp.JobID, "<JOB>")
			if j := jobStatus(t, resp.JobID, api.JobCompleted); j.Version != s.vars[v] {
				t.Errorf("published-run ran version %s, want %s", j.Version, s.vars[v])
			}
		})
	}
	s.steps(
		step{cmd: "pipeline add --file $DIR/hot.yaml", setup: true},
		step{cmd: "pipeline add --file $DIR/hot.yaml --pipetype Draft", setup: true},
		step{cmd: "pipeline add --file $DIR/draft.yaml --pipetype Draft", setup: true},
		step{cmd: "deployment add --file $DIR/dep.yaml", setup: true},
		step{do: func() { started("pipeline published-run --name hot-hosts", "V1") }},
		step{cmd: "deployment svcs-status --id hot", key: "pipeline-publish"},
		step{cmd: "pipeline publish --name hot-hosts --version $V2"},
		step{cmd: "deployment svcs-status --id hot", key: "pipeline-publish"},
		step{do: func() { started("pipeline published-run --name hot-hosts", "V2") }},
		step{do: func() { started("pipeline published-run --name hot-hosts --version $V1", "V1") }},

		step{cmd: "pipeline publish --name hot-hosts --version $V2", code: 1},
		step{cmd: "pipeline publish --name hot-hosts --version 2020_01_01_9", code: 1},
		step{cmd: "pipeline publish --name nosuch --version $V1", code: 1},
		step{cmd: "pipeline publish --name hot-hosts", code: 2},
		step{cmd: "pipeline published-run --name drafty", code: 1},
		step{cmd: "pipeline published-run --name drafty --version $V1", code: 1},
		step{cmd: "pipeline published-run --name nosuch", code: 1},
		step{cmd: "pipeline published-run", code: 2},
	)
}
