package graphdb

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

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
	if e := graphEditError(err); e != nil {
		return e
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
	case len(rest) == 2 && r.Method == http.MethodPost && (rest[1] == "vertex" || rest[1] == "edge"),
		len(rest) == 3 && r.Method == http.MethodDelete && (rest[1] == "vertex" || rest[1] == "edge"),
		len(rest) == 3 && r.Method == http.MethodPut && rest[1] == "edge":
		return s.editGraph(r, name, rest[1:])
	case len(rest) >= 3 && (rest[1] == "vertex" || rest[1] == "edge"):
		return s.graphDocument(r, g, rest[1], rest[2], rest[3:])
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// graphDocument serves a graph's vertex and edge documents:
// POST .../vertex|edge/COLL, and GET, PATCH, PUT, DELETE .../COLL/KEY.
// Edges must join collections of their edge definition (1947), and
// vertices that exist (1202).
func (s *Server) graphDocument(r *request, g *graphstore.Graph, kind, coll string, key []string) (any, int, error) {
	vertex, edges := g.Collections()
	member := vertex
	if kind == "edge" {
		member = edges
	}
	if !slices.Contains(member, coll) {
		if kind == "edge" {
			return nil, 0, newError(404, 1930, "edge collection not used in graph")
		}
		return nil, 0, newError(404, 1926, "vertex collection does not exist or is not part of the graph")
	}
	q := r.URL.Query()
	status := 202
	if q.Get("waitForSync") == "true" {
		status = 201
	}
	pre := graphstore.Precondition{IfMatch: etagRev(r.Header.Get("If-Match"))}
	if pre.IfMatch == "" {
		pre.IfMatch = q.Get("rev")
	}
	if r.Method == http.MethodGet && len(key) == 1 {
		data, err := s.store.Document(r.db, coll, key[0])
		if err != nil {
			return nil, 0, docError(err)
		}
		if pre.IfMatch != "" && pre.IfMatch != revOf(data) {
			return nil, 0, newError(412, 1200, conflictMessage)
		}
		if want := etagRev(r.Header.Get("If-None-Match")); want != "" && want == revOf(data) {
			return nil, http.StatusNotModified, nil // no body, as ArangoDB answers
		}
		return map[string]any{"error": false, "code": 200, kind: json.RawMessage(data)}, 200, nil
	}
	var doc map[string]any
	if r.Method != http.MethodDelete {
		body, e := readJSONBody(r.Request)
		if e != nil {
			return nil, 0, e
		}
		d, ok := body.(map[string]any)
		if !ok {
			return nil, 0, newError(400, 1227, "invalid document type")
		}
		doc = d
		if kind == "edge" {
			if err := s.checkEdge(r.db, g, coll, doc, len(key) == 1 && r.Method == http.MethodPatch); err != nil {
				return nil, 0, err
			}
		}
	}
	var results []graphstore.Result
	var err error
	switch {
	case r.Method == http.MethodPost && len(key) == 0:
		results, err = s.store.Insert(r.db, coll, []any{doc}, graphstore.OverwriteConflict, true, true)
	case (r.Method == http.MethodPatch || r.Method == http.MethodPut) && len(key) == 1:
		doc["_key"] = key[0]
		results, err = s.store.ModifyIf(r.db, coll, []any{doc}, r.Method == http.MethodPut, q.Get("keepNull") != "false", true, pre)
		if status == 201 {
			status = 200 // gharial answers a synced change with 200
		}
	case r.Method == http.MethodDelete && len(key) == 1:
		results, err = s.store.RemoveIf(r.db, coll, []any{key[0]}, pre)
		if status == 201 {
			status = 200
		}
	default:
		return nil, 0, newError(405, 405, "method not supported")
	}
	if err != nil {
		return nil, 0, docError(err)
	}
	res := results[0]
	if res.Err != nil {
		return nil, 0, docError(res.Err)
	}
	if r.Method == http.MethodDelete && kind == "vertex" {
		// ArangoDB deletes the vertex's edges in the graphs that hold it.
		if _, err := s.store.RemoveVertexEdges(r.db, coll, res.ID); err != nil {
			return nil, 0, docError(err)
		}
	}
	body := map[string]any{"error": false, "code": status}
	if r.Method == http.MethodDelete {
		body["removed"] = true
		if q.Get("returnOld") == "true" {
			body["old"] = res.Old
		}
		return body, status, nil
	}
	meta := map[string]any{"_id": res.ID, "_key": res.Key, "_rev": res.Rev}
	if res.OldRev != "" {
		meta["_oldRev"] = res.OldRev
	}
	body[kind] = meta
	if q.Get("returnNew") == "true" {
		body["new"] = res.New
	}
	if q.Get("returnOld") == "true" && res.Old != nil {
		body["old"] = res.Old
	}
	return body, status, nil
}

// checkEdge checks that an edge joins a from and a to collection of its
// definition, and vertices that exist (a patch may leave either out).
func (s *Server) checkEdge(db string, g *graphstore.Graph, coll string, doc map[string]any, patch bool) *apiError {
	var def graphstore.EdgeDefinition
	for _, d := range g.EdgeDefinitions {
		if d.Collection == coll {
			def = d
		}
	}
	for _, end := range []struct {
		field string
		colls []string
	}{{"_from", def.From}, {"_to", def.To}} {
		v, present := doc[end.field]
		if !present && patch {
			continue
		}
		h, _ := v.(string)
		c, k, ok := strings.Cut(h, "/")
		if !ok {
			return newError(400, 1233, "edge attribute missing or invalid")
		}
		if !slices.Contains(end.colls, c) {
			return newError(400, 1947, "referenced _from/_to collection is not part of the graph")
		}
		if _, err := s.store.Document(db, c, k); err != nil {
			return docError(err)
		}
	}
	return nil
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
	dirs, ok := edgeDirections(q.Get("direction"))
	if !ok {
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
