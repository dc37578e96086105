package yamldoc

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
	"gopkg.in/yaml.v3"
)

// billionLaughs is the bomb without a prefix.
func billionLaughs() string { return BillionLaughs("") }

// nested is a flow sequence nested n deep.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestParse: documents within their limits are read as yaml.v3 reads
// them; those over a limit, or with a recursive alias, are refused with
// the one line that names it.
func TestParse(t *testing.T) {
	small := Limits{Size: 1000, Depth: 10, Expansion: 20}
	for _, tc := range []struct {
		name, text string
		limits     Limits
		docs       int
		wantErr    string
	}{
		{name: "mapping", text: "a: 1\nb: [x, y]\n", docs: 1},
		{name: "empty", text: "", docs: 0},
		{name: "two documents", text: "a: 1\n---\nb: 2\n", docs: 2},
		{name: "aliases within the limit", text: "d: &d {x: 1, y: 2}\ne: *d\nf: {<<: *d, z: 3}\n", limits: small, docs: 1},
		{name: "syntax", text: "a: [unclosed\n", wantErr: "yaml: line 1: did not find expected ',' or ']'"},
		{name: "unknown alias", text: "a: *nope\n", wantErr: "yaml: unknown anchor 'nope' referenced"},
		{name: "recursive alias", text: "a: &a [*a]\n", wantErr: "line 1: the YAML alias *a refers to a node that contains it (a recursive alias)"},
		{name: "recursive through a mapping", text: "a: &a\n  b:\n    c: *a\n", wantErr: "line 3: the YAML alias *a refers to a node that contains it (a recursive alias)"},
		{name: "recursive merge", text: "a: &a {<<: *a}\n", wantErr: "(a recursive alias)"},
		{name: "billion laughs", text: billionLaughs(), wantErr: "the YAML document's aliases expand it by more than its alias expansion limit of 100000 nodes"},
		{name: "expansion over a small limit", text: "d: &d [1, 2, 3, 4, 5, 6, 7, 8]\ne: [*d, *d, *d]\n", limits: small, wantErr: "alias expansion limit of 20 nodes"},
		{name: "expansion across documents", text: "d: &d [1, 2, 3, 4, 5, 6, 7, 8]\n---\n[*d, *d]\n---\n[*d, *d]\n", limits: small, wantErr: "alias expansion limit of 20 nodes"},
		{name: "deep", text: nested(12), limits: small, wantErr: "line 1: the YAML document nests deeper than its depth limit of 10 levels (aliases expanded)"},
		{name: "deep through aliases", text: "a: &a [[[[[[1]]]]]]\nb: [[[[*a]]]]\n", limits: small, wantErr: "line 2: the YAML document nests deeper than its depth limit of 10 levels"},
		{name: "default depth", text: nested(1200), wantErr: "depth limit of 1000 levels"},
		{name: "size", text: strings.Repeat("a", 1001), limits: small, wantErr: "the YAML text is over its size limit of 1000 B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Parse([]byte(tc.text), -1, tc.limits)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error of more than one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != tc.docs {
				t.Fatalf("%d documents, want %d", len(docs), tc.docs)
			}
		})
	}
}

// TestLimitErrors: a limit crossed matches ErrLimit, and a recursive
// alias ErrRecursiveAlias.
func TestLimitErrors(t *testing.T) {
	_, err := Parse([]byte(billionLaughs()), -1, Limits{})
	var le *LimitError
	if !errors.Is(err, ErrLimit) || !errors.As(err, &le) || le.Limit != "alias expansion" {
		t.Fatalf("billion laughs: %v", err)
	}
	if _, err := ParseOne([]byte("&a [*a]"), Limits{}); !errors.Is(err, ErrRecursiveAlias) {
		t.Fatalf("recursive alias: %v", err)
	}
}

// TestUnmarshal: a text within its limits decodes into a struct, unknown
// fields refused when asked; a bomb is refused before yaml.v3 sees it.
func TestUnmarshal(t *testing.T) {
	type settings struct {
		Site string   `yaml:"site"`
		Pods []string `yaml:"pods"`
	}
	for _, tc := range []struct {
		name, text string
		known      bool
		want       settings
		wantErr    string
	}{
		{name: "fields", text: "site: a\npods: [x, y]\n", known: true, want: settings{Site: "a", Pods: []string{"x", "y"}}},
		{name: "empty", text: "", known: true},
		{name: "unknown field", text: "site: a\nnope: 1\n", known: true, wantErr: "line 2: field nope not found in type yamldoc.settings"},
		{name: "fields that do not fit, on one line", text: "site: [a]\npods: b\n", wantErr: "line 1: cannot unmarshal !!seq into string; line 2: cannot unmarshal !!str `b` into []string"},
		{name: "unknown field allowed", text: "site: a\nnope: 1\n", want: settings{Site: "a"}},
		{name: "bomb", text: billionLaughs(), wantErr: "alias expansion limit"},
		{name: "recursive", text: "site: &a [*a]\n", wantErr: "recursive alias"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got settings
			err := Unmarshal([]byte(tc.text), &got, Limits{}, tc.known)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestHostileYAMLBombs: the bombs a tenant can write are refused in
// milliseconds and little memory (the bound is generous: a machine under
// load is slow, but the bombs would take minutes and gigabytes).
func TestHostileYAMLBombs(t *testing.T) {
	for _, tc := range []struct{ name, text, wantErr string }{
		{"billion laughs", billionLaughs(), "alias expansion limit"},
		{"recursive alias", "a: &a [*a]\n", "recursive alias"},
		{"deep nesting", nested(9000), "depth limit"},
		{"deep aliases", "a: &a [[[[[[[[[[1]]]]]]]]]]\nb: &b [[[[[[[[[[*a]]]]]]]]]]\nc: &c [[[[[[[[[[*b]]]]]]]]]]\n" + "d: " + strings.Repeat("[", 990) + "*c" + strings.Repeat("]", 990), "depth limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Parse([]byte(tc.text), -1, Limits{})
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
}

// TestWalkWithinLimits: a document Parse accepts is safe to walk
// following every alias: its nodes are at most the text's plus the
// expansion limit.
func TestWalkWithinLimits(t *testing.T) {
	text := "d: &d [1, 2, 3, 4, 5, 6, 7, 8, 9]\ne: [*d, *d, *d, *d, *d]\nf: {<<: {x: *d}}\n"
	l := Limits{Expansion: 60}
	doc, err := ParseOne([]byte(text), l)
	if err != nil {
		t.Fatal(err)
	}
	var count func(n *yaml.Node) int
	count = func(n *yaml.Node) int {
		if n.Kind == yaml.AliasNode {
			return count(n.Alias)
		}
		c := 1
		for _, k := range n.Content {
			c += count(k)
		}
		return c
	}
	// 1 document + 1 mapping + 3 keys + d (1+9) + e (1+5*10) + f (1 + 1+1 + 1+10):
	// 20 nodes written, 60 added by the aliases.
	if got := count(doc); got != 80 {
		t.Fatalf("%d nodes expanded, want 80", got)
	}
	if _, err := ParseOne([]byte(text), Limits{Expansion: 59}); err == nil {
		t.Fatal("an expansion of 60 nodes passed a limit of 59")
	}
}
