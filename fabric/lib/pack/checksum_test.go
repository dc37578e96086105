package pack

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

func TestChecksum(t *testing.T) {
	sum := func(typ, text string) string {
		t.Helper()
		s, err := Checksum(typ, []byte(text))
		if err != nil {
			t.Fatalf("Checksum(%s, %q): %v", typ, text, err)
		}
		return s
	}
	const doc = "name: overview\nwidgets:\n  - {type: chart, size: 3, ratio: 1.5}\n  - {type: table, tags: [a, b]}\nenabled: true\n"
	for _, tc := range []struct {
		name  string
		typ   string
		a, b  string
		equal bool
	}{
		{"YAML and JSON", TypeDashboard, doc, `{"widgets": [{"ratio": 1.5, "size": 3, "type": "chart"}, {"tags": ["a", "b"], "type": "table"}], "name": "overview"}`, true},
		{"key order", TypeBlueprint, "a: 1\nb: {x: 1, y: 2}\n", "b: {y: 2, x: 1}\na: 1\n", true},
		{"stamped keys", TypeBlueprint, "a: 1\n", "a: 1\nsaved_time: 2024-01-01T00:00:00Z\nenabled: false\nversion_time: 12\n", true},
		{"stamped keys only at the top", TypeBlueprint, "a: {}\n", "a: {enabled: true}\n", false},
		{"value changed", TypeBlueprint, "a: 1\n", "a: 2\n", false},
		{"number as written", TypeBlueprint, "a: 1.0\n", `{"a": 1}`, true},
		{"number and text", TypeBlueprint, "a: 1\n", "a: '1'\n", false},
		{"comments and style", TypeBlueprint, "# c\na:   [1,2]   # x\n", "a:\n- 1\n- 2\n", true},
		{"list order matters", TypeBlueprint, "a: [1, 2]\n", "a: [2, 1]\n", false},
		{"pipeline trailing spaces", TypePipeline, "@dm:empty  \n--> @dm:x\t\n", "@dm:empty\n--> @dm:x", true},
		{"pipeline CRLF and blank lines", TypePipeline, "a\r\nb\r\n\r\n\n  \n", "a\nb\n", true},
		{"pipeline leading spaces count", TypePipeline, "a\n  b\n", "a\nb\n", false},
		{"pipeline inner blank line counts", TypePipeline, "a\n\nb\n", "a\nb\n", false},
		{"pipeline is text", TypePipeline, "a: 1\nb: 2\n", "b: 2\na: 1\n", false},
		{"dataset is bytes", TypeDataset, "a,b\n1,2\n", "a,b\n1,2", false},
		{"dataset same bytes", TypeDataset, "a,b\n", "a,b\n", true},
		{"non-text keys", TypeBlueprint, "1: a\ntrue: b\n", `{"1": "a", "true": "b"}`, true},
		{"NaN", TypeBlueprint, "a: .nan\nb: -.inf\n", "a: .NaN\nb: -.Inf\n", true},
		{"empty is null", TypeBlueprint, "", "null", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := sum(tc.typ, tc.a), sum(tc.typ, tc.b)
			if (a == b) != tc.equal {
				t.Errorf("checksums %s and %s, want equal %v", a, b, tc.equal)
			}
		})
	}
	// The canonical JSON is what is hashed.
	h := sha256.Sum256([]byte(`{"a":1,"b":"<x>"}`))
	if got, want := sum(TypeBlueprint, "b: <x>\na: 1\nenabled: true\n"), "sha256:"+hex.EncodeToString(h[:]); got != want {
		t.Errorf("checksum %s, want %s", got, want)
	}
	for _, bad := range []string{"a: [1\n", yamldoc.BillionLaughs(""), "a: &a [*a]\n"} {
		if _, err := Checksum(TypeDashboard, []byte(bad)); err == nil {
			t.Errorf("Checksum of %q: no error", bad[:min(len(bad), 20)])
		}
	}
	if _, err := Checksum(TypePipeline, []byte(yamldoc.BillionLaughs(""))); err != nil {
		t.Errorf("a pipeline is text: %v", err)
	}
	if s := sum(TypeBlueprint, "a: 1\n---\nb: 2\n"); s == sum(TypeBlueprint, "a: 1\n") || !strings.HasPrefix(s, "sha256:") {
		t.Error("a second document is not hashed")
	}
}
