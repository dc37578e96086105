package yamldoc

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// FuzzParse: any text is either refused with a one-line error or gives
// documents that a walk following every alias finishes within the
// limits (depth and nodes), quickly.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"a: 1\nb: [x, y]\n",
		"a: &a [*a]\n",
		"a: &a {<<: *a}\n",
		billionLaughs(),
		nested(50),
		"d: &d {x: 1}\ne: {<<: *d, y: 2}\n---\n[*d]\n",
		"0: !!binary 0X80\n",
		"? [a, b]\n: c\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	l := Limits{Size: 1 << 16, Depth: 40, Expansion: 1000}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		docs, err := Parse(data, -1, l)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error of more than one line: %q", err)
			}
			return
		}
		var written, expanded int64
		seen := map[*yaml.Node]bool{}
		var walk func(n *yaml.Node, depth int)
		walk = func(n *yaml.Node, depth int) {
			if n.Kind == yaml.AliasNode {
				walk(n.Alias, depth)
				return
			}
			if depth > l.Depth {
				t.Fatalf("%q: a walk reached depth %d, over the limit %d", data, depth, l.Depth)
			}
			if expanded++; expanded > int64(len(data))+l.Expansion+int64(len(docs)) {
				t.Fatalf("%q: a walk reached %d nodes", data, expanded)
			}
			if !seen[n] {
				seen[n] = true
				written++
			}
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
		for _, d := range docs {
			walk(d, 1)
		}
		if expanded-written > l.Expansion {
			t.Fatalf("%q: aliases added %d nodes, over the limit %d", data, expanded-written, l.Expansion)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Fatalf("%q took %v", data, took)
		}
	})
}
