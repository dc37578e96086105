package cfxarrow

import (
	"testing"

	"github.com/fabricops/fabric/fabric/lib/cfxql/internal/cfxqltest"
)

// TestEval runs the shared evaluator cases through Match, Mask and
// Filter: cfxql holds Match to the same expectations.
func TestEval(t *testing.T) {
	for _, g := range cfxqltest.Groups {
		t.Run(g.Name, func(t *testing.T) {
			for _, c := range g.Cases {
				checkBoth(t, c.Query, c.Want)
			}
		})
	}
}
