package graphdb

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// The ids of the indexes every collection has, as ArangoDB numbers
// them: the primary index (on _key), and an edge collection's edge index
// (on _from and _to).
const (
	primaryIndexID = "0"
	edgeIndexID    = "1"
)

// indexBody is an index as ArangoDB describes it.
func indexBody(coll string, ix *graphstore.Index) map[string]any {
	m := map[string]any{"id": coll + "/" + ix.ID, "name": ix.Name, "type": ix.Type, "fields": ix.Fields,
		"unique": ix.Unique, "sparse": ix.Sparse}
	switch ix.Type {
	case graphstore.IndexPersistent:
		m["deduplicate"] = ix.Deduplicate
		m["estimates"] = ix.Estimates
		m["cacheEnabled"] = ix.CacheEnabled
		m["selectivityEstimate"] = 1
		if len(ix.StoredValues) > 0 {
			m["storedValues"] = ix.StoredValues
		}
	case graphstore.IndexTTL:
		m["expireAfter"] = ix.ExpireAfter
		m["estimates"] = false
	}
	return m
}

// builtinIndexes are the primary index and, of an edge collection, the
// edge index.
func builtinIndexes(c *graphstore.CollectionInfo) []map[string]any {
	out := []map[string]any{{"id": c.Name + "/" + primaryIndexID, "name": "primary", "type": "primary", "fields": []string{"_key"},
		"unique": true, "sparse": false, "selectivityEstimate": 1}}
	if c.Type == graphstore.EdgeCollection {
		out = append(out, map[string]any{"id": c.Name + "/" + edgeIndexID, "name": "edge", "type": "edge", "fields": []string{"_from", "_to"},
			"unique": false, "sparse": false, "selectivityEstimate": 1})
	}
	return out
}

// indexRequest is the body of POST /_api/index.
type indexRequest struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Fields       json.RawMessage `json:"fields"` // strings; other index types give objects
	Unique       bool            `json:"unique"`
	Sparse       bool            `json:"sparse"`
	Deduplicate  *bool           `json:"deduplicate"`
	Estimates    *bool           `json:"estimates"`
	CacheEnabled bool            `json:"cacheEnabled"`
	ExpireAfter  *float64        `json:"expireAfter"`
	StoredValues []string        `json:"storedValues"`
	InBackground bool            `json:"inBackground"`
}

// index serves /_api/index: GET ?collection= lists a collection's
// indexes, POST ?collection= makes one, GET and DELETE /{coll}/{id} read
// and drop one (by id or name).
func (s *Server) index(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		c, err := s.store.Collection(r.db, r.URL.Query().Get("collection"))
		if err != nil {
			return nil, 0, err
		}
		list, err := s.store.Indexes(r.db, c.Name)
		if err != nil {
			return nil, 0, err
		}
		indexes := []any{}
		ids := map[string]any{}
		for _, b := range builtinIndexes(c) {
			indexes = append(indexes, b)
			ids[b["id"].(string)] = b
		}
		for _, ix := range list {
			b := indexBody(c.Name, ix)
			indexes = append(indexes, b)
			ids[b["id"].(string)] = b
		}
		return map[string]any{"error": false, "code": 200, "indexes": indexes, "identifiers": ids}, 200, nil
	case len(rest) == 0 && r.Method == http.MethodPost:
		return s.createIndex(r)
	case len(rest) == 2 && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
		c, err := s.store.Collection(r.db, rest[0])
		if err != nil {
			return nil, 0, err
		}
		for _, b := range builtinIndexes(c) {
			if b["id"] == c.Name+"/"+rest[1] || b["name"] == rest[1] {
				if r.Method == http.MethodDelete {
					return nil, 0, newError(403, 1214, "cannot drop this index")
				}
				b["error"], b["code"] = false, 200
				return b, 200, nil
			}
		}
		var ix *graphstore.Index
		if r.Method == http.MethodDelete {
			ix, err = s.store.DropIndex(r.db, c.Name, rest[1])
		} else {
			ix, err = s.store.Index(r.db, c.Name, rest[1])
		}
		if err != nil {
			return nil, 0, indexError(err)
		}
		if r.Method == http.MethodDelete {
			return map[string]any{"error": false, "code": 200, "id": c.Name + "/" + ix.ID}, 200, nil
		}
		b := indexBody(c.Name, ix)
		b["error"], b["code"] = false, 200
		return b, 200, nil
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// createIndex serves POST /_api/index?collection=.
func (s *Server) createIndex(r *request) (any, int, error) {
	c, err := s.store.Collection(r.db, r.URL.Query().Get("collection"))
	if err != nil {
		return nil, 0, err
	}
	var body indexRequest
	if err := readBody(r.Request, &body); err != nil {
		return nil, 0, err
	}
	switch body.Type {
	case graphstore.IndexPersistent, graphstore.IndexTTL, "hash", "skiplist":
	case "primary", "edge":
		return nil, 0, newError(400, 10, "cannot create index of type "+body.Type)
	default:
		return nil, 0, newError(400, 10, "invalid index type '"+body.Type+"': this server has persistent and ttl indexes")
	}
	var fields []string
	if err := json.Unmarshal(body.Fields, &fields); err != nil {
		return nil, 0, newError(400, 10, "bad parameter: fields must be an array of attribute paths")
	}
	def := graphstore.Index{Type: body.Type, Name: body.Name, Fields: fields, Unique: body.Unique, Sparse: body.Sparse,
		Deduplicate: body.Deduplicate == nil || *body.Deduplicate, Estimates: body.Estimates == nil || *body.Estimates,
		CacheEnabled: body.CacheEnabled, StoredValues: body.StoredValues}
	switch body.Type {
	case graphstore.IndexTTL:
		if body.ExpireAfter == nil || *body.ExpireAfter < 0 {
			return nil, 0, newError(400, 10, "expireAfter attribute must be a number >= 0")
		}
		def.ExpireAfter = *body.ExpireAfter
	}
	ix, created, err := s.store.CreateIndex(r.db, c.Name, def)
	if err != nil {
		return nil, 0, indexError(err)
	}
	b := indexBody(c.Name, ix)
	code := 200
	if created {
		code = 201
	}
	b["isNewlyCreated"], b["error"], b["code"] = created, false, code
	return b, code, nil
}

// indexError maps the store's index errors to ArangoDB's.
func indexError(err error) error {
	switch {
	case errors.Is(err, graphstore.ErrIndexNotFound):
		return newError(404, 1212, "index not found")
	case errors.Is(err, graphstore.ErrUniqueConstraint):
		return newError(409, 1210, "unique constraint violated"+strings.TrimPrefix(err.Error(), graphstore.ErrUniqueConstraint.Error()))
	case errors.Is(err, graphstore.ErrIndexType):
		return newError(400, 10, "invalid index type: "+err.Error())
	case errors.Is(err, graphstore.ErrIndexNameTaken):
		return newError(409, 1207, "duplicate value: an index of another definition has this name")
	case errors.Is(err, graphstore.ErrIndexDefinition), errors.Is(err, graphstore.ErrTooManyIndexes):
		return newError(400, 10, "bad parameter: "+err.Error())
	case errors.Is(err, graphstore.ErrIndexEntries):
		return newError(400, 10, err.Error())
	}
	return err
}

// Indexes lists a collection's indexes for a query (aql.IndexedSource).
func (s storeSource) Indexes(coll string) []aql.IndexInfo {
	c, err := s.store.Collection(s.db, coll)
	if err != nil {
		return nil
	}
	out := []aql.IndexInfo{{ID: primaryIndexID, Name: "primary", Type: "primary", Fields: []string{"_key"}, Unique: true}}
	if c.Type == graphstore.EdgeCollection {
		out = append(out, aql.IndexInfo{ID: edgeIndexID, Name: "edge", Type: "edge", Fields: []string{"_from"}},
			aql.IndexInfo{ID: edgeIndexID, Name: "edge", Type: "edge", Fields: []string{"_to"}})
	}
	list, _ := s.store.Indexes(s.db, coll)
	for _, ix := range list {
		out = append(out, aql.IndexInfo{ID: ix.ID, Name: ix.Name, Type: ix.Type, Fields: ix.Fields, Unique: ix.Unique, Sparse: ix.Sparse})
	}
	return out
}

// IndexScan reads a collection's documents through an index
// (aql.IndexedSource): the primary index by key, the edge index by
// vertex, the others by their entries.
func (s storeSource) IndexScan(coll string, ix aql.IndexInfo, eq []any, lo, hi *aql.Bound, fn func(map[string]any) bool) error {
	switch ix.Type {
	case "primary":
		key, ok := eq[0].(string)
		if !ok {
			return nil
		}
		doc, err := s.r.Document(s.db, coll, key)
		if errors.Is(err, graphstore.ErrDocumentNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		fn(doc)
		return nil
	case "edge":
		vertex, ok := eq[0].(string)
		if !ok {
			return nil
		}
		dir := "outbound"
		if ix.Fields[0] == "_to" {
			dir = "inbound"
		}
		edges, err := s.Edges(coll, vertex, dir)
		if err != nil {
			return err
		}
		for _, e := range edges {
			if !fn(e) {
				break
			}
		}
		return nil
	}
	bound := func(b *aql.Bound) *graphstore.Bound {
		if b == nil {
			return nil
		}
		return &graphstore.Bound{Value: b.Value, Inclusive: b.Inclusive}
	}
	err := s.r.IndexScan(s.db, coll, ix.ID, eq, bound(lo), bound(hi), func(d graphstore.Doc) bool { return fn(d) })
	if errors.Is(err, graphstore.ErrIndexNotFound) {
		return s.Scan(coll, fn) // dropped since the query began: a full scan
	}
	return err
}

// TTLFrequency is how often the documents that ttl indexes say expired
// are removed (ArangoDB's --ttl.frequency, 30 s there: here a run that
// finds nothing costs a seek per ttl index).
const TTLFrequency = time.Second

// expireLoop removes expired documents, and aborts idle stream
// transactions, every TTLFrequency until the store is closed.
func (s *Server) expireLoop() {
	t := time.NewTicker(TTLFrequency)
	defer t.Stop()
	for now := range t.C {
		s.expireTxns(now)
		if _, err := s.store.ExpireTTL(now); err != nil {
			if errors.Is(err, graphstore.ErrClosed) {
				return
			}
			s.logf("graph database: removing expired documents: %v", err)
		}
	}
}
