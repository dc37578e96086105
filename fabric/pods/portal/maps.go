package portal

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/mapsvg"
)

// maxMapDeployments bounds the deployments the index lists.
const maxMapDeployments = 500

// mapLookup is the session's tenant as a deployment's map reads it: the
// versions of its pipelines (a map draws what they read and write).
type mapLookup struct{ ses *session }

var _ blueprint.Lookup = mapLookup{}

func (l mapLookup) PipelineVersions(ctx context.Context, name string) ([]api.Pipeline, error) {
	vs, err := l.ses.data.PipelineVersions(ctx, name)
	if errors.Is(err, tenant.ErrNoPipeline) {
		return nil, nil
	}
	return vs, err
}

// WorkerSites is not needed to draw a map.
func (l mapLookup) WorkerSites(context.Context) ([]string, error) { return nil, nil }

func (l mapLookup) StreamExists(ctx context.Context, name string) (bool, error) {
	return streams.Exists(ctx, l.ses.js, name)
}

func (l mapLookup) DatasetExists(ctx context.Context, name string) (bool, error) {
	return l.ses.data.DatasetExists(ctx, name)
}

// handleMap draws a deployment's map (as "client deployment map --svg"
// does): an SVG picture of the deployment, its pipelines and what they
// read and write; ?all=1 draws the system streams too. The picture is
// served sandboxed: it runs no script.
func (s *Server) handleMap(w http.ResponseWriter, r *http.Request, ses *session) {
	id := r.PathValue("id")
	doc, err := ses.repo.GetJSON(r.Context(), artifact.Deployment, id)
	if err != nil {
		http.Error(w, err.Error(), errStatus(err))
		return
	}
	b, err := blueprint.Parse(doc)
	if err != nil {
		http.Error(w, "deployment "+id+": "+err.Error(), http.StatusUnprocessableEntity)
		return
	}
	rs, err := blueprint.ResolveAll(r.Context(), mapLookup{ses}, b)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	m := blueprint.BuildMap(b, rs)
	all := r.URL.Query().Get("all") == "1"
	pic := mapsvg.Map{Title: m.Data.Stack.Name, Caption: strings.TrimSuffix(m.Status+": "+m.Reason, ": ")}
	for _, n := range m.Data.Stack.Nodes {
		if n.DefaultVisibility == "hidden" && !all {
			continue
		}
		pic.Nodes = append(pic.Nodes, mapsvg.Node{ID: n.ID, Type: n.Type, Label: n.Label, Layer: n.Layer})
	}
	for _, rel := range m.Data.Stack.Relationships {
		pic.Edges = append(pic.Edges, mapsvg.Edge{From: rel.Left, To: rel.Right, Label: rel.Description, Type: rel.Type})
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	h.Set("Cache-Control", "no-store")
	_, _, _ = mapsvg.Render(w, pic)
}

// deployments lists the ids of a session's deployments, for the index's
// maps (at most maxMapDeployments).
func (s *Server) deployments(r *http.Request, ses *session) []string {
	recs, err := ses.repo.List(r.Context(), artifact.Deployment)
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(recs))
	for _, rec := range recs {
		if id, ok := rec.Doc.String(artifact.Deployment.Key); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids[:min(len(ids), maxMapDeployments)]
}
