package graphdb

import (
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
		m["cacheEnabled"] = false
		m["writeConcern"] = 1
		m["schema"] = nil
		m["computedValues"] = nil
		m["statusString"] = "loaded"
	}
	return m
}

// collection serves /_api/collection (its errors, a write the disk
// fence refuses among them, are mapped by storeError).
func (s *Server) collection(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodPost:
		var body struct {
			Name        string                `json:"name"`
			Type        int                   `json:"type"`
			IsSystem    bool                  `json:"isSystem"`
			WaitForSync bool                  `json:"waitForSync"`
			KeyOptions  graphstore.KeyOptions `json:"keyOptions"`
		}
		body.KeyOptions.AllowUserKeys = true
		if err := readBody(r.Request, &body); err != nil {
			return nil, 0, err
		}
		c, err := s.store.CreateCollection(r.db, body.Name, body.Type, body.IsSystem, body.WaitForSync, body.KeyOptions)
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
	case len(rest) == 2 && rest[1] == "properties" && r.Method == http.MethodGet:
		c, err := s.store.Collection(r.db, name)
		if err != nil {
			return nil, 0, err
		}
		return collectionBody(c, true), 200, nil
	case len(rest) == 2 && rest[1] == "count" && r.Method == http.MethodGet:
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
	case len(rest) == 2 && rest[1] == "truncate" && r.Method == http.MethodPut:
		c, err := s.store.Truncate(r.db, name)
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
	}
	return nil, 0, newError(405, 405, "method not supported")
}
