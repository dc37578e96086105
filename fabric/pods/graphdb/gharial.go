package graphdb

import (
	"errors"
	"net/http"

	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// graphEditError maps the store's refusals of a change to a graph's
// collections to ArangoDB's gharial errors (nil for any other error).
func graphEditError(err error) *apiError {
	for _, m := range []struct {
		err         error
		status, num int
	}{
		{graphstore.ErrVertexNotInGraph, 404, 1926},
		{graphstore.ErrNotOrphan, 400, 1928},
		{graphstore.ErrUsedInEdgeDefinition, 400, 1929},
		{graphstore.ErrUsedInOrphans, 400, 1938},
		{graphstore.ErrEdgeDefinitionReused, 400, 1920},
		{graphstore.ErrEdgeDefinitionOther, 400, 1921},
		{graphstore.ErrMalformedDefinition, 400, 1923},
		{graphstore.ErrEdgeNotInGraph, 404, 1930},
	} {
		if errors.Is(err, m.err) {
			return newError(m.status, m.num, m.err.Error())
		}
	}
	return nil
}

// editGraph serves the changes to a named graph's collections:
// POST .../vertex (add an orphan collection), DELETE .../vertex/COLL
// [?dropCollection=true], POST .../edge (add an edge definition),
// PUT .../edge/COLL [?dropCollections=true] (replace it) and
// DELETE .../edge/COLL [?dropCollections=true] (remove it). Each answers
// the graph as it now is, 202 (201 for an add or replace with
// waitForSync=true, 200 for a remove with it).
func (s *Server) editGraph(r *request, name string, rest []string) (any, int, error) {
	q := r.URL.Query()
	sync := q.Get("waitForSync") == "true"
	drop := q.Get("dropCollection") == "true" || q.Get("dropCollections") == "true"
	var body struct {
		Collection string   `json:"collection"`
		From       []string `json:"from"`
		To         []string `json:"to"`
	}
	if r.Method != http.MethodDelete {
		if err := readBody(r.Request, &body); err != nil {
			return nil, 0, err
		}
	}
	def := graphstore.EdgeDefinition{Collection: body.Collection, From: body.From, To: body.To}
	var g *graphstore.Graph
	var err error
	status := 202
	switch {
	case rest[0] == "vertex" && r.Method == http.MethodPost:
		if body.Collection == "" {
			return nil, 0, newError(400, 1923, "malformed edge definition: no collection")
		}
		g, err = s.store.AddVertexCollection(r.db, name, body.Collection)
		if sync {
			status = 201
		}
	case rest[0] == "vertex":
		g, err = s.store.RemoveVertexCollection(r.db, name, rest[1], drop)
		if sync {
			status = 200
		}
	case r.Method == http.MethodPost:
		g, err = s.store.AddEdgeDefinition(r.db, name, def)
		if sync {
			status = 201
		}
	case r.Method == http.MethodPut:
		if def.Collection != rest[1] {
			return nil, 0, newError(400, 1923, "malformed edge definition: collection '"+def.Collection+"' is not '"+rest[1]+"'")
		}
		g, err = s.store.ReplaceEdgeDefinition(r.db, name, def, drop)
		if sync {
			status = 201
		}
	default:
		g, err = s.store.RemoveEdgeDefinition(r.db, name, rest[1], drop)
		if sync {
			status = 200
		}
	}
	if err != nil {
		return nil, 0, graphError(err, name)
	}
	return map[string]any{"error": false, "code": status, "graph": graphBody(g)}, status, nil
}
