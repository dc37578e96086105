package graphdb

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/docjson"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// Revisions as ArangoDB honours them on /_api/document: the If-Match and
// If-None-Match headers of a single-document request, a _rev in the body
// (or in each element of a bulk) with ignoreRevs=false, and external
// versioning (versionAttribute). The checks of writes are the store's
// (graphstore.Precondition), made under its lock with the write.

// conflictMessage is ArangoDB's message of a failed revision precondition
// (errorNum 1200).
const conflictMessage = "conflict, _rev values do not match"

// etagRev reads the revision of an If-Match or If-None-Match header as
// ArangoDB does: blanks and one pair of quotes around it dropped ("" when
// the header is absent or empty).
func etagRev(h string) string {
	h = strings.Trim(h, " \t")
	if len(h) > 0 && (h[0] == '"' || h[0] == '\'') {
		h = h[1:]
	}
	if n := len(h); n > 0 && (h[n-1] == '"' || h[n-1] == '\'') {
		h = h[:n-1]
	}
	return h
}

// etag is the ETag header value of a revision.
func etag(rev string) string { return `"` + rev + `"` }

// precondition is what a write request asks the store to check: If-Match
// for a single document (ArangoDB ignores it on bulks), each _rev with
// ignoreRevs=false, and versionAttribute.
func precondition(r *request, bulk bool) graphstore.Precondition {
	q := r.URL.Query()
	p := graphstore.Precondition{Revs: q.Get("ignoreRevs") == "false", VersionAttribute: q.Get("versionAttribute")}
	if !bulk {
		p.IfMatch = etagRev(r.Header.Get("If-Match"))
	}
	return p
}

// writeConflict answers a failed revision precondition of one document:
// 412, errorNum 1200, with the document's current _id, _key and _rev in
// the body and its revision as the ETag.
func writeConflict(w http.ResponseWriter, id, key, rev string) {
	data, _ := json.Marshal(map[string]any{"error": true, "code": 412, "errorNum": 1200, "errorMessage": conflictMessage,
		"_id": id, "_key": key, "_rev": rev})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Etag", etag(rev))
	w.WriteHeader(412)
	w.Write(data)
}

// revOf returns the _rev of a stored document's JSON ("" if it has none).
func revOf(data []byte) string {
	values, _, err := docjson.Fields(data, []string{"_rev"})
	if err != nil {
		return ""
	}
	rev, _ := values[0].(string)
	return rev
}

// read serves GET and HEAD /_api/document/{collection}/{key}: the
// document with its revision as the ETag; 412 (errorNum 1200, the current
// revision in the body) when If-Match names another revision, then 304
// (no body) when If-None-Match names the current one.
func (s *Server) read(w http.ResponseWriter, r *request, coll, key string) {
	data, err := r.docs.Document(r.db, coll, key)
	if err != nil {
		writeError(w, docError(err))
		return
	}
	rev := revOf(data)
	if want := etagRev(r.Header.Get("If-Match")); want != "" && want != rev {
		writeConflict(w, coll+"/"+key, key, rev)
		return
	}
	w.Header().Set("Etag", etag(rev))
	if want := etagRev(r.Header.Get("If-None-Match")); want != "" && want == rev {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(200)
	if r.Method == http.MethodGet {
		w.Write(data)
	}
}

// staleRev reports whether a bulk read item names a _rev (with
// ignoreRevs=false) other than that of the document found, data.
func staleRev(item any, data []byte) (rev string, stale bool) {
	d, ok := item.(map[string]any)
	if !ok {
		return "", false
	}
	want, ok := d["_rev"].(string)
	if !ok || want == "" {
		return "", false
	}
	rev = revOf(data)
	return rev, rev != want
}
