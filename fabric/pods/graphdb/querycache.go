package graphdb

import (
	"net/http"
)

// The server keeps no query results cache and no query plan cache: it
// answers as ArangoDB does with both off. The results cache's properties
// are kept as set (except its mode, which stays "off"), and its entries
// and the plan cache are empty lists.

// cacheProps are the query results cache's properties
// (/_api/query-cache/properties).
type cacheProps struct {
	set            bool
	IncludeSystem  bool   `json:"includeSystem"`
	MaxEntrySize   uint64 `json:"maxEntrySize"`
	MaxResults     uint64 `json:"maxResults"`
	MaxResultsSize uint64 `json:"maxResultsSize"`
	Mode           string `json:"mode"`
}

// defaultCacheProps are ArangoDB's defaults, the cache off.
var defaultCacheProps = cacheProps{MaxEntrySize: 16 << 20, MaxResults: 128, MaxResultsSize: 256 << 20, Mode: "off"}

// cacheProperties returns the results cache's properties.
func (t *queryTracker) cacheProperties() cacheProps {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.cache.set {
		return defaultCacheProps
	}
	return t.cache
}

// setCacheProperties applies a PUT of the results cache's properties.
func (t *queryTracker) setCacheProperties(u cachePropsUpdate) (cacheProps, error) {
	if u.Mode != nil && *u.Mode != "off" {
		switch *u.Mode {
		case "on", "demand":
			return cacheProps{}, newError(501, errNotImplemented, "this server has no query results cache: its mode can only be \"off\"")
		}
		return cacheProps{}, newError(400, errBadParameter, "invalid query cache mode \""+*u.Mode+"\": off, on or demand")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.cache
	if !p.set {
		p = defaultCacheProps
	}
	if u.IncludeSystem != nil {
		p.IncludeSystem = *u.IncludeSystem
	}
	for _, f := range []struct {
		dst *uint64
		v   *uint64
	}{{&p.MaxEntrySize, u.MaxEntrySize}, {&p.MaxResults, u.MaxResults}, {&p.MaxResultsSize, u.MaxResultsSize}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	p.set = true
	t.cache = p
	return p, nil
}

// cachePropsUpdate is the body of PUT /_api/query-cache/properties.
type cachePropsUpdate struct {
	IncludeSystem  *bool   `json:"includeSystem"`
	MaxEntrySize   *uint64 `json:"maxEntrySize"`
	MaxResults     *uint64 `json:"maxResults"`
	MaxResultsSize *uint64 `json:"maxResultsSize"`
	Mode           *string `json:"mode"`
}

// queryCache serves /_api/query-cache: properties (GET, PUT), entries
// (GET: none) and DELETE (nothing to clear).
func (s *Server) queryCache(r *request, rest []string) (any, int, error) {
	t := &s.cursors.tracked
	switch {
	case len(rest) == 1 && rest[0] == "properties" && r.Method == http.MethodGet:
		return t.cacheProperties(), 200, nil
	case len(rest) == 1 && rest[0] == "properties" && r.Method == http.MethodPut:
		var u cachePropsUpdate
		if err := readBody(r.Request, &u); err != nil {
			return nil, 0, err
		}
		p, err := t.setCacheProperties(u)
		if err != nil {
			return nil, 0, err
		}
		return p, 200, nil
	case len(rest) == 1 && rest[0] == "entries" && r.Method == http.MethodGet:
		return []any{}, 200, nil
	case len(rest) == 0 && r.Method == http.MethodDelete:
		return map[string]any{"error": false, "code": 200}, 200, nil
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// queryPlanCache serves /_api/query-plan-cache: GET (no plans are
// cached) and DELETE (nothing to clear).
func (s *Server) queryPlanCache(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		return []any{}, 200, nil
	case len(rest) == 0 && r.Method == http.MethodDelete:
		return map[string]any{"error": false, "code": 200}, 200, nil
	}
	return nil, 0, newError(405, 405, "method not supported")
}
