package main

import (
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

// TestHostileSettingsYAML: a settings file that is an alias bomb, a
// recursive alias or too deep is refused with one line naming the limit,
// at once; unknown keys are still refused.
func TestHostileSettingsYAML(t *testing.T) {
	for _, tc := range []struct{ name, text, wantErr string }{
		{"billion laughs", yamldoc.BillionLaughs(""), "invalid settings: the YAML document's aliases expand it by more than its alias expansion limit of 100000 nodes"},
		{"recursive alias", "pods: &a [*a]\n", "invalid settings: line 1: the YAML alias *a refers to a node that contains it (a recursive alias)"},
		{"deep", "pods: " + strings.Repeat("[", 3000) + strings.Repeat("]", 3000) + "\n", "depth limit of 1000 levels"},
		{"unknown key", "site: a\nnope: 1\n", "invalid settings: line 2: field nope not found in type main.Settings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := ParseSettings([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tc.wantErr)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}
