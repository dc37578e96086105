package cli

import (
	"testing"

	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputLimits: the limits in force on a tenant, from the server's
// account and from the pods that enforce them.
func TestOutputLimits(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	s := newSession(t, "limits")
	s.steps(
		step{cmd: "limits"},
		step{cmd: "limits --scope job --json"},
		step{cmd: "limits --scope nosuch"},
		step{cmd: "limits --scope", code: 2},
	)
	s.unreachable("limits")
}
