package artifact

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

// billionLaughs is an artifact that is an alias bomb.
var billionLaughs = yamldoc.BillionLaughs("name: laughs\n")

// TestHostileArtifactYAML: an artifact whose YAML is a bomb (a recursive
// alias, a billion laughs, nesting past the depth limit) is refused by
// Parse with one line naming the limit, in milliseconds and little
// memory; before, a recursive alias overflowed the stack (a fatal error
// no recover catches) and a billion laughs grew without bound.
func TestHostileArtifactYAML(t *testing.T) {
	for _, tc := range []struct{ name, text, wantErr string }{
		{"recursive alias", "name: x\na: &a [*a]\n", "line 2: the YAML alias *a refers to a node that contains it (a recursive alias)"},
		{"billion laughs", billionLaughs, "the YAML document's aliases expand it by more than its alias expansion limit of 100000 nodes"},
		{"deep", "name: x\na: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n", "the YAML document nests deeper than its depth limit of 1000 levels"},
		{"huge", "name: x\na: \"" + strings.Repeat("x", 5<<20) + "\"\n", "the YAML text is over its size limit of 4 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Parse([]byte(tc.text))
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tc.wantErr)
			}
			if took > 2*time.Second {
				t.Errorf("took %v", took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %s", budget.Bytes(int64(alloc)))
			}
		})
	}
	if _, err := Parse([]byte(billionLaughs)); !errors.Is(err, yamldoc.ErrLimit) {
		t.Errorf("a billion laughs is not a YAML limit error: %v", err)
	}
}

// TestParseBinaryAndControlCharacters: a !!binary value is the text it
// encodes when that is UTF-8, refused when not; a document holding
// characters YAML's reader refuses (DEL, C1 controls, U+FFFE) or
// surrogate escapes prints as YAML that reads back as the same document.
func TestParseBinaryAndControlCharacters(t *testing.T) {
	for _, tc := range []struct{ name, text, want, wantErr string }{
		{name: "binary text", text: "name: !!binary aGVsbG8=\n", want: `{"name":"hello"}`},
		{name: "binary bytes", text: "0: !!binary 0X80", wantErr: "line 1: the !!binary value is not UTF-8 text"},
		{name: "control characters", text: `{"name": "a\u007fb\u0080\ufffe"}`, want: "{\"name\":\"a\u007fb\u0080\ufffe\"}"},
		{name: "surrogate pair", text: `{"name": "\ud83d\ude00"}`, want: "{\"name\":\"\U0001F600\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.text))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			y, err := d.YAML()
			if err != nil {
				t.Fatalf("YAML: %v", err)
			}
			back, err := Parse(y)
			if err != nil {
				t.Fatalf("the YAML does not read back: %v\n%s", err, y)
			}
			if got := string(back.JSON()); got != tc.want {
				t.Fatalf("read back as %s, want %s", got, tc.want)
			}
		})
	}
}
