package builtins_test

import (
	"strings"
	"testing"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/builtins/data"
	"go.starlark.net/starlark"
)

// The tests of this package run the data build: every module.
func init() { data.Register() }

// TestDataExtendsTheLeanModules: what the data package registers is there,
// once each, beside the lean build's modules (dataset.list and
// dataset.get in one dataset module).
func TestDataExtendsTheLeanModules(t *testing.T) {
	env := &builtins.Env{Home: t.TempDir()}
	m := builtins.Modules(env)
	names := builtins.Names(env)
	if len(names) < 15 {
		t.Fatalf("the data package registers %d names: %v", len(names), names)
	}
	for _, n := range append(names, "dataset.list", "dataset.meta", "pipeline.list", "jobs", "pods") {
		mod, member, dotted := strings.Cut(n, ".")
		v, ok := m[mod]
		if !ok {
			t.Errorf("%s: no %s", n, mod)
			continue
		}
		if dotted {
			h, _ := v.(starlark.HasAttrs)
			if a, err := h.Attr(member); err != nil || a == nil {
				t.Errorf("%s: not in module %s", n, mod)
			}
		}
	}
}
