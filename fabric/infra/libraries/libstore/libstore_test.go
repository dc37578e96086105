package libstore

import (
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
)

func TestTargets(t *testing.T) {
	regs := []api.Registration{{PodID: "a1", PodType: "worker", Site: "local"}, {PodID: "b2", PodType: "worker", Site: "remote"},
		{PodID: "c3", PodType: "api-server"}}
	for _, c := range []struct {
		target api.LibraryTarget
		want   string
	}{
		{api.LibraryTarget{PodType: "worker", Site: ".*"}, "a1,b2"},
		{api.LibraryTarget{PodType: "worker", Site: "loc"}, "error"},
		{api.LibraryTarget{PodType: "worker", Site: "("}, "error"},
		{api.LibraryTarget{PodType: "worker", PodIDs: []string{"c3"}}, "error"},
		{api.LibraryTarget{PodType: "worker", PodIDs: []string{"a1", "b2", "dead"}, Site: "remote"}, "b2,dead"},
		{api.LibraryTarget{PodType: "worker", Site: "rem.*"}, "b2"},
		{api.LibraryTarget{PodType: "worker", PodIDs: []string{"a1", "c3", "dead"}}, "a1,dead"},
	} {
		ids, err := Targets(regs, c.target)
		if err != nil {
			ids = []string{"error"}
		}
		if strings.Join(ids, ",") != c.want {
			t.Errorf("Targets(%+v) = %v, %v; want %s", c.target, ids, err, c.want)
		}
	}
}
