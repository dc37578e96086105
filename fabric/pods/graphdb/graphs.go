package graphdb

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// graphError maps the store's graph errors to ArangoDB's.
func graphError(err error, name string) *apiError {
	switch {
	case errors.Is(err, graphstore.ErrGraphNotFound):
		return newError(404, 1924, fmt.Sprintf("graph '%s' not found", name))
	case errors.Is(err, graphstore.ErrGraphExists):
		return newError(409, 1925, "graph already exists")
	case errors.Is(err, graphstore.ErrEdgeCollectionUse):
		return newError(400, 1944, "edge collection used as a document collection: "+err.Error())
	}
	return docError(err)
}

// graphBody is a graph as gharial describes it.
func graphBody(g *graphstore.Graph) map[string]any {
	defs := g.EdgeDefinitions
	if defs == nil {
		defs = []graphstore.EdgeDefinition{}
	}
	return map[string]any{"_key": g.Name, "_id": graphstore.GraphsCollection + "/" + g.Name, "name": g.Name,
		"edgeDefinitions": defs, "orphanCollections": g.OrphanCollections,
		"numberOfShards": 1, "replicationFactor": 1, "isSmart": false, "isDisjoint": false, "isSatellite": false}
}

// gharial serves /_api/gharial: graphs created, listed, read and dropped,
// and their vertex and edge collections listed.
func (s *Server) gharial(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodPost:
		var g graphstore.Graph
		if err := readBody(r.Request, &g); err != nil {
			return nil, 0, err
		}
		stored, err := s.store.CreateGraph(r.db, g)
		if err != nil {
			return nil, 0, graphError(err, g.Name)
		}
		return map[string]any{"error": false, "code": 202, "graph": graphBody(stored)}, 202, nil
	case len(rest) == 0 && r.Method == http.MethodGet:
		gs, err := s.store.Graphs(r.db)
		if err != nil {
			return nil, 0, err
		}
		list := []any{}
		for _, g := range gs {
			list = append(list, graphBody(g))
		}
		return map[string]any{"error": false, "code": 200, "graphs": list}, 200, nil
	}
	if len(rest) == 0 {
		return nil, 0, newError(405, 405, "method not supported")
	}
	name := rest[0]
	g, err := s.store.Graph(r.db, name)
	if err != nil {
		return nil, 0, graphError(err, name)
	}
	switch {
	case len(rest) == 1 && r.Method == http.MethodGet:
		return map[string]any{"error": false, "code": 200, "graph": graphBody(g)}, 200, nil
	case len(rest) == 1 && r.Method == http.MethodDelete:
		if err := s.store.DropGraph(r.db, name, r.URL.Query().Get("dropCollections") == "true"); err != nil {
			return nil, 0, graphError(err, name)
		}
		return map[string]any{"error": false, "code": 202, "removed": true}, 202, nil
	case len(rest) == 2 && r.Method == http.MethodGet && (rest[1] == "vertex" || rest[1] == "edge"):
		vertex, edge := g.Collections()
		list := vertex
		if rest[1] == "edge" {
			list = edge
		}
		if list == nil {
			list = []string{}
		}
		return map[string]any{"error": false, "code": 200, "collections": list}, 200, nil
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// edges serves GET /_api/edges/{collection}?vertex=ID&direction=in|out:
// a vertex's edges, read through the edge indexes.
func (s *Server) edges(r *request, rest []string) (any, int, error) {
	if len(rest) != 1 || r.Method != http.MethodGet {
		return nil, 0, newError(405, 405, "method not supported")
	}
	q := r.URL.Query()
	vertex := q.Get("vertex")
	if vertex == "" {
		return nil, 0, newError(400, 1205, "illegal document identifier")
	}
	var dirs []graphstore.Direction
	switch q.Get("direction") {
	case "out":
		dirs = []graphstore.Direction{graphstore.Outbound}
	case "in":
		dirs = []graphstore.Direction{graphstore.Inbound}
	case "", "any":
		dirs = []graphstore.Direction{graphstore.Outbound, graphstore.Inbound}
	default:
		return nil, 0, newError(400, 400, "direction must be in, out or any")
	}
	out := []any{}
	seen := map[string]bool{}
	for _, d := range dirs {
		keys, err := s.store.Edges(r.db, rest[0], vertex, d)
		if err != nil {
			return nil, 0, docError(err)
		}
		for _, k := range keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			data, err := s.store.Document(r.db, rest[0], k)
			if err != nil {
				return nil, 0, docError(err)
			}
			out = append(out, json.RawMessage(data))
		}
	}
	return map[string]any{"error": false, "code": 200, "edges": out,
		"stats": map[string]any{"scannedIndex": len(out), "filtered": 0}}, 200, nil
}
