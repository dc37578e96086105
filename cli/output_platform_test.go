package cli

import (
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputPlatform: what runs in the fabric. The pods' health rows come
// in pod id order, so the healthcheck runs keep to one pod type (a table
// of several types would change order from run to run).
func TestOutputPlatform(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	s := newSession(t, "pods", "agents", "site-summary", "healthcheck", "pod-controller-status", "pod-controller-restart", "fabric-gc")
	s.vars["WORKER"] = f.PodsOf("a", api.Worker)[0]

	s.steps(
		step{cmd: "pods"},
		step{cmd: "pods --versions --type worker"},
		step{cmd: "pods --json --type api-server"},
		step{cmd: "pods --type nosuch", code: 2},

		step{cmd: "agents"},
		step{cmd: "agents --site local --json"},
		step{cmd: "agents --group local"},
		step{cmd: "agents --site elsewhere"},

		step{cmd: "site-summary"},
		step{cmd: "site-summary --json"},

		step{cmd: "healthcheck --type api-server"},
		step{cmd: "healthcheck --type worker --simple"},
		step{cmd: "healthcheck --type scheduler --json"},
		step{cmd: "healthcheck --infra --apps", code: 2},

		step{cmd: "pod-controller status"},
		step{cmd: "pod-controller status --json"},
		step{cmd: "pod-controller restart --pod-id $WORKER"},
		step{cmd: "pod-controller restart --pod-id nosuch", code: 1},

		step{cmd: "fabric gc --dry-run"},
		step{cmd: "fabric gc --grace 0s --json"},
		step{cmd: "fabric gc --grace soon", code: 1},

		// Without a scheduler the workers' dependency check fails.
		step{do: func() {
			if err := f.Runners["a"].StopPod(f.PodsOf("a", api.Scheduler)[0]); err != nil {
				t.Fatal(err)
			}
		}},
		step{cmd: "healthcheck --type worker --simple", code: 1},
		step{cmd: "healthcheck --type worker", code: 1},
	)
	s.unreachable("pods", "agents", "site-summary", "healthcheck", "pod-controller status", "fabric gc")
}
