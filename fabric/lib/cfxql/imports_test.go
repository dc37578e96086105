package cfxql

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoArrow fails when cfxql depends on Arrow again, directly or
// through another package: programs that only parse and match queries
// (the lean shell) link it, and the Arrow evaluator belongs in cfxarrow.
func TestNoArrow(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "/arrow") || strings.HasSuffix(p, "/fabric/lib/frame") {
			t.Errorf("cfxql depends on %s", p)
		}
	}
}
