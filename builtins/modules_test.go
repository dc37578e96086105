package builtins_test

import (
	"slices"
	"testing"

	"github.com/fabricops/fabric/builtins"
	"go.starlark.net/starlark"
)

// leanNames are the names the lean client has for real.
var leanNames = append([]string{"pods", "healthcheck", "limits", "agents", "agent_bots", "invoke_agent_bot", "event_gw_status", "pod_controller", "fabric", "stored", "secret", "project", "demo"},
	builtins.ArtifactModuleNames()...)

// TestDataNamesCoverTheModules: every builtin is either one the lean
// client has or one of DataNames (so a program that uses it is handed to
// the full client), and the lean client has every constant of a data
// module that a script may read while declaring its commands.
func TestDataNamesCoverTheModules(t *testing.T) {
	m := builtins.Modules(&builtins.Env{Home: t.TempDir()})
	for name, v := range m {
		lean, data := slices.Contains(leanNames, name), slices.Contains(builtins.DataNames, name)
		if lean == data {
			t.Errorf("%s: lean %v, in DataNames %v: want exactly one", name, lean, data)
		}
		if !data {
			continue
		}
		mod, ok := v.(starlark.HasAttrs)
		if !ok {
			continue
		}
		for _, attr := range mod.AttrNames() {
			a, _ := mod.Attr(attr)
			if _, callable := a.(starlark.Callable); !callable && !builtins.IsModuleConst(name, attr) {
				t.Errorf("%s.%s is a constant the lean client lacks (add it to moduleConsts)", name, attr)
			}
		}
	}
	for _, name := range builtins.DataNames {
		if _, ok := m[name]; !ok {
			t.Errorf("DataNames has %s, which is no builtin", name)
		}
	}
}
