package artifact_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/infra/artifact"
)

// A stack a synthetic profile probes and a dashboard a group lists are
// not deleted: the refusal names the user; once it is gone, they are.
func TestDeleteRefusedWhileUsed(t *testing.T) {
	r := openRepo(t)
	ctx := context.Background()
	for _, a := range []struct {
		k    *artifact.Kind
		text string
	}{
		{artifact.Stack, "name: web\ncomponents:\n  - {name: front, type: http, host: 127.0.0.1, port: 8080}\n"},
		{artifact.Stack, "name: idle\ncomponents:\n  - {name: db, type: tcp}\n"},
		{artifact.Synthetics, "name: web-probes\nstack: web\nprobes:\n  - {name: home, type: http, target: 'http://127.0.0.1:8080/'}\n"},
		{artifact.Dashboard, "name: ops\n"},
		{artifact.Dashboard, "name: spare\n"},
		{artifact.DashGroup, `{"name": "team", "dashboardList": [{"name": "ops"}]}`},
	} {
		if _, err := r.Add(ctx, a.k, []byte(a.text), false); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		k          *artifact.Kind
		name, want string
	}{
		{artifact.Stack, "web", `stack "web" is used by synthetic profile "web-probes": change or delete that first`},
		{artifact.Dashboard, "ops", `dashboard "ops" is used by dashboard group "team": change or delete that first`},
		{artifact.Stack, "idle", ""},
		{artifact.Dashboard, "spare", ""},
	} {
		err := r.Delete(ctx, c.k, c.name)
		if c.want == "" {
			if err != nil {
				t.Errorf("delete %s: %v", c.name, err)
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("delete %s: %v, want %q", c.name, err, c.want)
		}
		if _, err := r.Get(ctx, c.k, c.name); err != nil {
			t.Errorf("%s is gone after a refused delete: %v", c.name, err)
		}
	}
	// Users gone, the deletes go through.
	if err := r.Delete(ctx, artifact.Synthetics, "web-probes"); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, artifact.DashGroup, "team"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k    *artifact.Kind
		name string
	}{{artifact.Stack, "web"}, {artifact.Dashboard, "ops"}} {
		if err := r.Delete(ctx, c.k, c.name); err != nil && !strings.Contains(err.Error(), "not found") {
			t.Errorf("delete %s once unused: %v", c.name, err)
		}
	}
}
