package graphdb

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// collectionBody is a collection as ArangoDB describes it: info fields,
// and with props its properties.
func collectionBody(c *graphstore.CollectionInfo, props bool) map[string]any {
	m := map[string]any{"error": false, "code": 200, "id": c.ID, "name": c.Name, "status": 3,
		"type": c.Type, "isSystem": c.IsSystem, "globallyUniqueId": "h" + c.ID}
	if props {
		m["waitForSync"] = c.WaitForSync
		m["keyOptions"] = c.KeyOptions
		m["cacheEnabled"] = c.CacheEnabled
		m["writeConcern"] = 1
		m["schema"] = nil
		if len(c.Schema) > 0 {
			m["schema"] = c.Schema
		}
		m["computedValues"] = nil
		if len(c.ComputedValues) > 0 {
			m["computedValues"] = c.ComputedValues
		}
		m["statusString"] = "loaded"
		m["syncByRevision"] = true
		m["usesRevisionsAsDocumentIds"] = true
		m["internalValidatorType"] = 0
		m["isSmartChild"] = false
	}
	return m
}

// maxProperties bounds the body of a properties change (a schema and
// computed values), and maxSchema a schema (kept in the collection's
// record, which every open of the store reads).
const (
	maxProperties = 1 << 20
	maxSchema     = 256 << 10
)

// propertiesBody is what a collection's creation and a properties change
// set besides the creation's own fields.
type propertiesBody struct {
	WaitForSync    *bool           `json:"waitForSync"`
	CacheEnabled   *bool           `json:"cacheEnabled"`
	Schema         json.RawMessage `json:"schema"`
	ComputedValues json.RawMessage `json:"computedValues"`
	// replicationFactor, writeConcern and numberOfShards are a cluster's:
	// a single server accepts and ignores them, as ArangoDB's does.
}

// apply checks the properties a request sets and sets them in p.
func (b *propertiesBody) apply(waitForSync *bool, p *graphstore.Properties) error {
	if b.WaitForSync != nil {
		*waitForSync = *b.WaitForSync
	}
	if b.CacheEnabled != nil {
		p.CacheEnabled = *b.CacheEnabled
	}
	if b.Schema != nil {
		switch s := string(b.Schema); {
		case s == "null" || s == "{}":
			p.Schema = nil
		case len(s) > maxSchema:
			return newError(400, 1621, fmt.Sprintf("invalid schema: %d bytes, over the limit of %d", len(s), maxSchema))
		case len(s) > 0 && s[0] == '{':
			p.Schema = b.Schema
		default:
			return newError(400, 1621, "invalid schema: it must be an object or null")
		}
	}
	if b.ComputedValues != nil {
		cvs, err := checkComputedValues(b.ComputedValues)
		if err != nil {
			return err
		}
		p.ComputedValues = cvs
	}
	return nil
}

// readSmallBody decodes a JSON body of at most max bytes into v (an
// empty body leaves v as it is).
func readSmallBody(r *http.Request, max int64, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return newError(400, 400, "cannot read the request body: "+err.Error())
	}
	if int64(len(data)) > max {
		return newError(413, 400, "request body too large for this endpoint")
	}
	if len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return vpackError(err)
	}
	return nil
}

// collection serves /_api/collection (its errors, a write the disk
// fence refuses among them, are mapped by storeError).
func (s *Server) collection(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodPost:
		var body struct {
			Name       string                `json:"name"`
			Type       int                   `json:"type"`
			IsSystem   bool                  `json:"isSystem"`
			KeyOptions graphstore.KeyOptions `json:"keyOptions"`
			propertiesBody
		}
		body.KeyOptions.AllowUserKeys = true
		if err := readBody(r.Request, &body); err != nil {
			return nil, 0, err
		}
		var waitForSync bool
		var props graphstore.Properties
		if err := body.apply(&waitForSync, &props); err != nil {
			return nil, 0, err
		}
		c, err := s.store.CreateCollectionWith(r.db, body.Name, body.Type, body.IsSystem, waitForSync, body.KeyOptions, props)
		if err != nil {
			return nil, 0, err
		}
		return collectionBody(c, true), 200, nil
	case len(rest) == 0 && r.Method == http.MethodGet:
		exclude := r.URL.Query().Get("excludeSystem") == "true"
		list := []any{}
		for _, c := range s.store.Collections(r.db) {
			if exclude && c.IsSystem {
				continue
			}
			b := collectionBody(c, false)
			delete(b, "error")
			delete(b, "code")
			list = append(list, b)
		}
		return ok(200, list), 200, nil
	}
	if len(rest) == 0 {
		return nil, 0, newError(405, 405, "method not supported")
	}
	name := rest[0]
	switch {
	case len(rest) == 1 && r.Method == http.MethodGet:
		c, err := s.store.Collection(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		return collectionBody(c, false), 200, nil
	case len(rest) == 1 && r.Method == http.MethodDelete:
		c, err := s.store.DropCollection(r.db, name, r.URL.Query().Get("isSystem") == "true")
		if err != nil {
			return nil, 0, err
		}
		return map[string]any{"error": false, "code": 200, "id": c.ID}, 200, nil
	case len(rest) == 2:
		return s.collectionOp(r, name, rest[1])
	}
	return nil, 0, newError(405, 405, "method not supported")
}
