package graphdb

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/docjson"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// docError is a document error as ArangoDB numbers it.
func docError(err error) *apiError {
	switch {
	case errors.Is(err, graphstore.ErrDocumentNotFound):
		return newError(404, 1202, "document not found")
	case errors.Is(err, graphstore.ErrUniqueConstraint):
		return newError(409, 1210, "unique constraint violated - in index primary of type primary over '_key'")
	case errors.Is(err, graphstore.ErrIllegalKey):
		return newError(400, 1221, "illegal document key")
	case errors.Is(err, graphstore.ErrDocumentType):
		return newError(400, 1227, "invalid document type")
	case errors.Is(err, graphstore.ErrEdgeAttribute):
		return newError(400, 1233, "edge attribute missing or invalid")
	case errors.Is(err, graphstore.ErrUserKey):
		return newError(400, 1222, "unexpected document key")
	case errors.Is(err, graphstore.ErrIdentifier):
		return newError(400, 1205, "illegal document identifier")
	case errors.Is(err, graphstore.ErrConflict):
		return newError(412, 1200, conflictMessage)
	}
	return storeError(err)
}

// spaceError maps the refusals of the store's disk fence to ArangoDB's
// errors (nil for any other error): past the tenant's storage limit,
// ArangoDB's "resource limit exceeded" (32); a full disk, or a store
// that failed to write, its "filesystem full" (1104). The message is
// the store's one line, with the sizes.
func spaceError(err error) *apiError {
	switch {
	case errors.Is(err, graphstore.ErrStorageLimit):
		return newError(400, 32, err.Error())
	case errors.Is(err, graphstore.ErrDiskFull):
		return newError(500, 1104, err.Error())
	}
	return nil
}

// document serves /_api/document/{collection}[/{key}].
func (s *Server) document(w http.ResponseWriter, r *request, rest []string) {
	if len(rest) == 0 {
		writeError(w, newError(400, 1203, "collection or view not found"))
		return
	}
	coll := rest[0]
	switch {
	case len(rest) == 1 && r.Method == http.MethodPost:
		s.insert(w, r, coll)
	case len(rest) == 1 && r.Method == http.MethodPut && r.URL.Query().Get("onlyget") == "true":
		s.lookup(w, r, coll)
	case (r.Method == http.MethodPut || r.Method == http.MethodPatch) && len(rest) <= 2,
		r.Method == http.MethodDelete && len(rest) <= 2:
		s.modify(w, r, coll, rest[1:])
	case len(rest) == 2 && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		s.read(w, r, coll, rest[1])
	default:
		writeError(w, newError(405, 405, "method not supported"))
	}
}

// insert serves POST /_api/document/{collection}: one document (an
// object) or many (an array), with overwriteMode, returnNew, returnOld,
// silent, keepNull, mergeObjects, and versionAttribute (and _rev with
// ignoreRevs=false) for the documents it replaces or updates.
func (s *Server) insert(w http.ResponseWriter, r *request, coll string) {
	q := r.URL.Query()
	body, e := readJSONBody(r.Request)
	if e != nil {
		writeError(w, e)
		return
	}
	mode := graphstore.OverwriteMode(q.Get("overwriteMode"))
	switch mode {
	case "":
		mode = graphstore.OverwriteConflict
		if q.Get("overwrite") == "true" {
			mode = graphstore.OverwriteReplace
		}
	case graphstore.OverwriteConflict, graphstore.OverwriteIgnore, graphstore.OverwriteReplace, graphstore.OverwriteUpdate:
	default:
		writeError(w, newError(400, 400, fmt.Sprintf("invalid overwriteMode %q", mode)))
		return
	}
	docs, bulk := body.([]any)
	if !bulk {
		if _, isObject := body.(map[string]any); !isObject {
			writeError(w, newError(400, 1227, "invalid document type"))
			return
		}
		docs = []any{body}
	}
	pre := precondition(r, true) // If-Match is not one of an insert's
	results, err := r.docs.InsertIf(r.db, coll, docs, mode, q.Get("keepNull") != "false", q.Get("mergeObjects") != "false", pre)
	if err != nil {
		writeError(w, docError(err))
		return
	}
	respond(w, r, results, bulk, 202)
}

// respond writes the results of a write: one document's meta (or its
// error) for a single write, an array of metas and errors for a bulk.
// status is the answer without waitForSync (201 with it).
func respond(w http.ResponseWriter, r *request, results []graphstore.Result, bulk bool, status int) {
	q := r.URL.Query()
	if q.Get("waitForSync") == "true" && r.Method != http.MethodDelete {
		status = 201
	}
	returnNew, returnOld, silent := q.Get("returnNew") == "true", q.Get("returnOld") == "true", q.Get("silent") == "true"
	item := func(res graphstore.Result) map[string]any {
		if res.Err != nil {
			e := docError(res.Err)
			m := map[string]any{"error": true, "errorNum": e.num, "errorMessage": e.msg}
			if errors.Is(res.Err, graphstore.ErrConflict) {
				m["_id"], m["_key"], m["_rev"] = res.ID, res.Key, res.Rev
			}
			return m
		}
		m := map[string]any{"_id": res.ID, "_key": res.Key, "_rev": res.Rev}
		if res.OldRev != "" {
			m["_oldRev"] = res.OldRev
		}
		if returnNew && res.New != nil {
			m["new"] = res.New
		}
		if returnOld && res.Old != nil {
			m["old"] = res.Old
		}
		return m
	}
	if !bulk {
		res := results[0]
		if errors.Is(res.Err, graphstore.ErrConflict) {
			writeConflict(w, res.ID, res.Key, res.Rev)
			return
		}
		if res.Err != nil {
			writeError(w, docError(res.Err))
			return
		}
		w.Header().Set("Etag", etag(res.Rev))
		if silent {
			writeJSON(w, status, map[string]any{})
			return
		}
		writeJSON(w, status, item(res))
		return
	}
	out := []any{}
	counts := map[int]int{}
	for _, res := range results {
		if res.Err != nil {
			counts[docError(res.Err).num]++
		} else if silent {
			continue
		}
		out = append(out, item(res))
	}
	if len(counts) > 0 {
		var parts []string
		for num, n := range counts {
			parts = append(parts, fmt.Sprintf("%d:%d", num, n))
		}
		sort.Strings(parts)
		w.Header().Set("X-Arango-Error-Codes", strings.Join(parts, ","))
	}
	writeJSON(w, status, out)
}

// readJSONBody reads a request body as JSON, numbers as written.
func readJSONBody(r *http.Request) (any, *apiError) {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, newError(400, 400, "cannot read the request body")
	}
	body, err := docjson.Decode(data)
	if err != nil {
		return nil, newError(400, 600, "invalid JSON object")
	}
	return body, nil
}

// modify serves PUT (replace), PATCH (update) and DELETE of one document
// (its key in the path) or many (an array body), with their revision
// preconditions: If-Match (one document), _rev with ignoreRevs=false,
// versionAttribute (replace and update).
func (s *Server) modify(w http.ResponseWriter, r *request, coll string, key []string) {
	q := r.URL.Query()
	var items []any
	bulk := len(key) == 0
	if bulk || r.Method != http.MethodDelete {
		body, e := readJSONBody(r.Request)
		if e != nil {
			writeError(w, e)
			return
		}
		if bulk {
			list, ok := body.([]any)
			if !ok {
				writeError(w, newError(400, 1227, "invalid document type"))
				return
			}
			items = list
		} else {
			d, ok := body.(map[string]any)
			if !ok {
				writeError(w, newError(400, 1227, "invalid document type"))
				return
			}
			d["_key"] = key[0]
			items = []any{d}
		}
	} else {
		items = []any{key[0]}
	}
	var results []graphstore.Result
	var err error
	status := 202
	pre := precondition(r, bulk)
	if r.Method == http.MethodDelete {
		pre.VersionAttribute = "" // not one of a delete's
		results, err = r.docs.RemoveIf(r.db, coll, items, pre)
		if !bulk {
			status = 200
		}
	} else {
		results, err = r.docs.ModifyIf(r.db, coll, items, r.Method == http.MethodPut, q.Get("keepNull") != "false", q.Get("mergeObjects") != "false", pre)
	}
	if err != nil {
		writeError(w, docError(err))
		return
	}
	respond(w, r, results, bulk, status)
}

// lookup serves PUT ?onlyget=true: the documents of a list of keys (or
// objects with _key; with ignoreRevs=false, a _rev other than the
// document's is the item's error 1200).
func (s *Server) lookup(w http.ResponseWriter, r *request, coll string) {
	body, e := readJSONBody(r.Request)
	if e != nil {
		writeError(w, e)
		return
	}
	items, ok := body.([]any)
	if !ok {
		writeError(w, newError(400, 1227, "invalid document type"))
		return
	}
	docs, errs, err := r.docs.Lookup(r.db, coll, items)
	if err != nil {
		writeError(w, docError(err))
		return
	}
	checkRevs := r.URL.Query().Get("ignoreRevs") == "false"
	out := make([]any, len(items))
	for i := range items {
		if checkRevs && errs[i] == nil {
			if rev, stale := staleRev(items[i], docs[i]); stale {
				k, _ := items[i].(map[string]any)["_key"].(string)
				out[i] = map[string]any{"error": true, "errorNum": 1200, "errorMessage": conflictMessage,
					"_id": coll + "/" + k, "_key": k, "_rev": rev}
				continue
			}
		}
		if errs[i] != nil {
			e := docError(errs[i])
			out[i] = map[string]any{"error": true, "errorNum": e.num, "errorMessage": e.msg}
		} else {
			out[i] = docs[i]
		}
	}
	writeJSON(w, 200, out)
}
