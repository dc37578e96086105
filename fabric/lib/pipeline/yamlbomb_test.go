package pipeline

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

// TestHostilePipelineYAML: a pipeline whose YAML is a bomb is refused by
// Load with one line naming the limit, in milliseconds and little memory
// (before, a billion laughs walked a million nodes before it was
// stopped).
func TestHostilePipelineYAML(t *testing.T) {
	for _, tc := range []struct{ name, text, wantErr string }{
		{"recursive alias", "name: x\ndata: &a {sequence: [*a]}\n", "recursive alias"},
		{"billion laughs", yamldoc.BillionLaughs("name: x\n"), "alias expansion limit of 100000 nodes"},
		{"deep", "name: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n", "depth limit of 1000 levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Load([]byte(tc.text), "p.yaml")
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tc.wantErr)
			}
			if took > 2*time.Second {
				t.Errorf("took %v", took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("allocated %s", budget.Bytes(int64(alloc)))
			}
		})
	}
}
