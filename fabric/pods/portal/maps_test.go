package portal_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/portal"
)

// TestDeploymentMaps: the index links each deployment's map, the map is
// an SVG picture of the deployment and its pipelines (the system streams
// with ?all=1), served sandboxed, and only to the deployment's tenant.
func TestDeploymentMaps(t *testing.T) {
	tp := newTestPortal(t, portal.Limits{})
	a := connect(t, tp.f.Configs["a"])
	if _, err := tenant.New(a.nc).AddPipeline(context.Background(), api.Pipeline{Name: "report", Data: api.PipelineData{Name: "report", Sequence: []api.PipelineStep{{Tag: "@dm:empty"}}}}); err != nil {
		t.Fatalf("adding the pipeline: %v", err)
	}
	if _, err := a.repo.Add(context.Background(), artifact.Deployment, []byte("id: edge-alerts\nname: Edge alerts\nservice_pipelines:\n  - name: report\n"), true); err != nil {
		t.Fatalf("adding the deployment: %v", err)
	}
	get := func(c *http.Client, path string) (int, string, http.Header) {
		t.Helper()
		resp, err := c.Get(tp.url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	c := browserClient(t)
	user, password := creds(tp.f.Configs["a"])
	if code, _ := tp.loginAs(t, c, user, password); code != http.StatusSeeOther {
		t.Fatalf("a's login: %d", code)
	}
	if _, index, _ := get(c, "/"); !strings.Contains(index, `href="/maps/edge-alerts"`) {
		t.Errorf("the index links no map of edge-alerts:\n%.500s", index)
	}
	code, svg, h := get(c, "/maps/edge-alerts")
	if code != http.StatusOK || h.Get("Content-Type") != "image/svg+xml" || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("the map: %d %s %s\n%.300s", code, h.Get("Content-Type"), h.Get("Content-Security-Policy"), svg)
	}
	for _, want := range []string{"<svg", `data-id="deployment:edge-alerts"`, `data-id="pipeline:report"`, "Edge alerts"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the map lacks %s:\n%s", want, svg)
		}
	}
	if _, missing, _ := get(c, "/maps/nope"); !strings.Contains(missing, "nope") {
		t.Errorf("a missing deployment's map: %q", missing)
	}
	if code, _, _ := get(c, "/maps/nope"); code != http.StatusNotFound {
		t.Errorf("a missing deployment's map: %d, want 404", code)
	}
	b := browserClient(t)
	user, password = creds(tp.f.Configs["b"])
	if code, _ := tp.loginAs(t, b, user, password); code != http.StatusSeeOther {
		t.Fatalf("b's login: %d", code)
	}
	if code, _, _ := get(b, "/maps/edge-alerts"); code != http.StatusNotFound {
		t.Errorf("b opening a's map: %d, want 404", code)
	}
}
