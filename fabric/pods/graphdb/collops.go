package graphdb

import (
	"net/http"

	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// collectionOp serves /_api/collection/{name}/{op}, as ArangoDB 3.12's
// single server answers each.
func (s *Server) collectionOp(r *request, name, op string) (any, int, error) {
	get, put := r.Method == http.MethodGet, r.Method == http.MethodPut
	switch {
	case op == "properties" && get:
		c, err := s.store.Collection(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		return collectionBody(c, true), 200, nil
	case op == "properties" && put:
		var body propertiesBody
		if err := readSmallBody(r.Request, maxProperties, &body); err != nil {
			return nil, 0, err
		}
		c, err := s.store.SetProperties(r.db, name, body.apply)
		if err != nil {
			return nil, 0, err
		}
		return collectionBody(c, true), 200, nil
	case op == "count" && get:
		c, err := s.store.Collection(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		n, err := s.store.Count(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		b := collectionBody(c, true)
		b["count"] = n
		return b, 200, nil
	case op == "revision" && get:
		c, err := s.store.Collection(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		rev, err := s.store.Revision(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		b := collectionBody(c, true)
		b["revision"] = rev
		return b, 200, nil
	case op == "checksum" && get:
		c, err := s.store.Collection(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		q := r.URL.Query()
		sum, rev, err := s.store.Checksum(r.Context(), r.db, name, queryBool(q.Get("withRevisions")), queryBool(q.Get("withData")))
		if err != nil {
			return nil, 0, err
		}
		b := collectionBody(c, false)
		b["checksum"] = graphstore.FormatChecksum(sum)
		b["revision"] = rev
		return b, 200, nil
	case op == "figures" && get:
		return s.figures(r, name)
	case op == "rename" && put:
		var body struct {
			Name string `json:"name"`
		}
		if err := readSmallBody(r.Request, 4<<10, &body); err != nil {
			return nil, 0, err
		}
		c, err := s.store.Rename(r.db, name, body.Name)
		if err != nil {
			return nil, 0, err
		}
		return collectionBody(c, false), 200, nil
	case op == "truncate" && put:
		c, err := s.store.Truncate(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		return collectionBody(c, false), 200, nil
	case op == "compact" && put:
		c, err := s.store.Collection(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		if err := s.store.Compact(r.Context(), r.db, name); err != nil {
			return nil, 0, err
		}
		return collectionBody(c, false), 200, nil
	case op == "recalculateCount" && put:
		n, err := s.store.RecalculateCount(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		return map[string]any{"error": false, "code": 200, "result": true, "count": n}, 200, nil
	case op == "loadIndexesIntoMemory" && put:
		// The store's indexes are Pebble's: there is nothing to load
		// ahead, and ArangoDB answers true when it is done.
		if _, err := s.store.Collection(r.db, name); err != nil {
			return nil, 0, err
		}
		return map[string]any{"error": false, "code": 200, "result": true}, 200, nil
	case op == "load" && put, op == "unload" && put:
		c, err := s.store.Collection(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		return collectionBody(c, false), 200, nil
	case op == "shards" && get, op == "responsibleShard" && put:
		if _, err := s.store.Collection(r.db, name); err != nil {
			return nil, 0, err
		}
		return nil, 0, newError(501, 1471, "this operation is only valid on a coordinator in a cluster")
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// figures serves GET /_api/collection/{name}/figures: the properties,
// the count and the figures a RocksDB single server reports (with
// details=true, its engine's too).
func (s *Server) figures(r *request, name string) (any, int, error) {
	c, err := s.store.Collection(r.db, name)
	if err != nil {
		return nil, 0, err
	}
	f, err := s.store.CollectionFigures(r.db, name)
	if err != nil {
		return nil, 0, err
	}
	figures := map[string]any{
		"indexes":       map[string]any{"count": f.Indexes, "size": 0},
		"documentsSize": f.Size,
		"cacheInUse":    false,
		"cacheSize":     0,
		"cacheUsage":    0,
	}
	if queryBool(r.URL.Query().Get("details")) {
		indexes := []any{map[string]any{"type": "primary", "id": 0, "count": f.Count}}
		if f.Indexes > 1 {
			indexes = append(indexes, map[string]any{"type": "edge", "id": 1, "count": f.Count})
		}
		figures["engine"] = map[string]any{"documents": f.Count, "indexes": indexes}
	}
	b := collectionBody(c, true)
	b["count"] = f.Count
	b["figures"] = figures
	return b, 200, nil
}
