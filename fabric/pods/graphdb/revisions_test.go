package graphdb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
)

// revDoc is a document of the revision tests.
type revDoc struct {
	Key  string `json:"_key,omitempty"`
	Rev  string `json:"_rev,omitempty"`
	Name string `json:"name"`
	Age  *int   `json:"age,omitempty"`
}

// revServer starts a server and returns its URL and the collection
// "people" of database "g" on it, through the driver over transport.
func revServer(t *testing.T, transport string) (string, arangodb.Collection) {
	t.Helper()
	url := serve(t, t.TempDir())
	c := clients(t, url, "root", "secret")[transport]
	ctx := context.Background()
	if _, err := c.Version(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := c.CreateDatabase(ctx, "g", nil)
	if err != nil {
		t.Fatal(err)
	}
	col, err := db.CreateCollectionV2(ctx, "people", nil)
	if err != nil {
		t.Fatal(err)
	}
	return url, col
}

// twoRevs creates a document and changes it once: its revision then
// (stale) and now (current).
func twoRevs(t *testing.T, col arangodb.Collection, key string) (stale, current string) {
	t.Helper()
	ctx := context.Background()
	meta, err := col.CreateDocument(ctx, revDoc{Key: key, Name: "first"})
	if err != nil {
		t.Fatal(err)
	}
	up, err := col.UpdateDocument(ctx, key, map[string]any{"name": "second"})
	if err != nil {
		t.Fatal(err)
	}
	return meta.Rev, up.Rev
}

// unchanged fails unless the document key still has revision rev and
// the name "second".
func unchanged(t *testing.T, col arangodb.Collection, key, rev string) {
	t.Helper()
	var d revDoc
	meta, err := col.ReadDocument(context.Background(), key, &d)
	if err != nil || meta.Rev != rev || d.Name != "second" {
		t.Errorf("%s changed: %+v %+v %v (want revision %s)", key, meta, d, err, rev)
	}
}

// isConflict reports whether err is ArangoDB's failed precondition: 412,
// errorNum 1200.
func isConflict(err error) bool {
	return shared.IsArangoErrorWithCode(err, 412) && shared.IsArangoErrorWithErrorNum(err, 1200)
}

// TestRevisionPreconditions: through the driver, each single-document
// write (and read) with a revision that is not the document's, by
// If-Match or by _rev with ignoreRevs=false, fails with 412 and errorNum
// 1200 and changes nothing; with the current revision it succeeds and
// returns the new one.
func TestRevisionPreconditions(t *testing.T) {
	ctx := context.Background()
	no := false
	type op func(col arangodb.Collection, key, rev string) (newRev string, err error)
	del := func(col arangodb.Collection, key, rev string) (string, error) {
		m, err := col.DeleteDocumentWithOptions(ctx, key, &arangodb.CollectionDocumentDeleteOptions{IfMatch: rev})
		return m.Rev, err
	}
	replace := func(col arangodb.Collection, key, rev string) (string, error) {
		m, err := col.ReplaceDocumentWithOptions(ctx, key, revDoc{Name: "replaced"}, &arangodb.CollectionDocumentReplaceOptions{IfMatch: rev})
		return m.Rev, err
	}
	update := func(col arangodb.Collection, key, rev string) (string, error) {
		m, err := col.UpdateDocumentWithOptions(ctx, key, map[string]any{"name": "updated"}, &arangodb.CollectionDocumentUpdateOptions{IfMatch: rev})
		return m.Rev, err
	}
	read := func(col arangodb.Collection, key, rev string) (string, error) {
		var d revDoc
		m, err := col.ReadDocumentWithOptions(ctx, key, &d, &arangodb.CollectionDocumentReadOptions{IfMatch: rev})
		return m.Rev, err
	}
	replaceRev := func(col arangodb.Collection, key, rev string) (string, error) {
		m, err := col.ReplaceDocumentWithOptions(ctx, key, revDoc{Rev: rev, Name: "replaced"}, &arangodb.CollectionDocumentReplaceOptions{IgnoreRevs: &no})
		return m.Rev, err
	}
	updateRev := func(col arangodb.Collection, key, rev string) (string, error) {
		m, err := col.UpdateDocumentWithOptions(ctx, key, map[string]any{"_rev": rev, "name": "updated"}, &arangodb.CollectionDocumentUpdateOptions{IgnoreRevs: &no})
		return m.Rev, err
	}
	// If-Match is the precondition even when the body's _rev matches.
	updateBoth := func(col arangodb.Collection, key, rev string) (string, error) {
		var d revDoc
		if _, err := col.ReadDocument(ctx, key, &d); err != nil {
			return "", err
		}
		m, err := col.UpdateDocumentWithOptions(ctx, key, map[string]any{"_rev": d.Rev, "name": "updated"}, &arangodb.CollectionDocumentUpdateOptions{IfMatch: rev, IgnoreRevs: &no})
		return m.Rev, err
	}
	// An ETag as HTTP writes it, in quotes.
	deleteQuoted := func(col arangodb.Collection, key, rev string) (string, error) {
		return del(col, key, `"`+rev+`"`)
	}
	cases := []struct {
		name  string
		op    op
		kind  string // what the op does when it succeeds: write, delete, read
		bogus bool   // a made-up revision instead of an earlier one
	}{
		{"delete If-Match", del, "delete", false},
		{"delete If-Match bogus", del, "delete", true},
		{"delete If-Match quoted", deleteQuoted, "delete", false},
		{"replace If-Match", replace, "write", false},
		{"update If-Match", update, "write", false},
		{"read If-Match", read, "read", false},
		{"replace _rev ignoreRevs=false", replaceRev, "write", false},
		{"update _rev ignoreRevs=false", updateRev, "write", false},
		{"update _rev ignoreRevs=false bogus", updateRev, "write", true},
		{"update If-Match over a matching _rev", updateBoth, "write", false},
	}
	for _, transport := range []string{"http1-basic", "h2c-jwt"} {
		_, col := revServer(t, transport)
		for i, c := range cases {
			t.Run(transport+"/"+c.name, func(t *testing.T) {
				key := "k" + string(rune('a'+i))
				stale, current := twoRevs(t, col, key)
				if c.bogus {
					stale = "bogus"
				}
				if _, err := c.op(col, key, stale); !isConflict(err) {
					t.Fatalf("with a stale revision: %v, want 412 errorNum 1200", err)
				}
				unchanged(t, col, key, current)
				if n, err := col.Count(ctx); err != nil || n != int64(i+1) {
					t.Errorf("count %d %v, want %d", n, err, i+1)
				}

				newRev, err := c.op(col, key, current)
				if err != nil {
					t.Fatalf("with the current revision: %v", err)
				}
				var d revDoc
				meta, rerr := col.ReadDocument(ctx, key, &d)
				switch c.kind {
				case "delete":
					if newRev != current || !shared.IsNotFound(rerr) {
						t.Errorf("delete answered %q (want %q); the document after: %v", newRev, current, rerr)
					}
					// Put it back for the count of the next case.
					if _, err := col.CreateDocument(ctx, revDoc{Key: key, Name: "back"}); err != nil {
						t.Fatal(err)
					}
				case "read":
					if newRev != current || rerr != nil || meta.Rev != current {
						t.Errorf("read answered %q, want %q: %v", newRev, current, rerr)
					}
				default:
					if newRev == "" || newRev == current || rerr != nil || meta.Rev != newRev || d.Name == "second" {
						t.Errorf("write answered %q (was %q); stored %+v %+v %v", newRev, current, meta, d, rerr)
					}
				}
			})
		}
	}
}

// TestRevisionIgnoredByDefault: without ignoreRevs=false a _rev in the
// body is no precondition (ArangoDB's default), and a _rev missing with
// ignoreRevs=false is none either.
func TestRevisionIgnoredByDefault(t *testing.T) {
	ctx := context.Background()
	_, col := revServer(t, "http1-basic")
	_, current := twoRevs(t, col, "a")
	m, err := col.UpdateDocument(ctx, "a", map[string]any{"_rev": "bogus", "name": "x"})
	if err != nil || m.OldRev != current {
		t.Fatalf("a _rev without ignoreRevs=false: %+v %v", m, err)
	}
	no := false
	if _, err := col.ReplaceDocumentWithOptions(ctx, "a", revDoc{Name: "y"}, &arangodb.CollectionDocumentReplaceOptions{IgnoreRevs: &no}); err != nil {
		t.Errorf("no _rev with ignoreRevs=false: %v", err)
	}
}

// TestRevisionBulk: in bulk replace, update, delete and read with
// ignoreRevs=false each element fails or passes its own _rev check: a
// stale or bogus one gets its error object (errorNum 1200, the
// document's current _rev) in the result array and its document is left
// as it was; the others (current _rev, or none) are applied.
func TestRevisionBulk(t *testing.T) {
	ctx := context.Background()
	no := false
	url, col := revServer(t, "h2c-jwt")
	for _, method := range []string{"replace", "update", "delete", "read"} {
		t.Run(method, func(t *testing.T) {
			keys := []string{method + "-stale", method + "-ok", method + "-norev", method + "-bogus"}
			stale, current := map[string]string{}, map[string]string{}
			for _, k := range keys {
				stale[k], current[k] = twoRevs(t, col, k)
			}
			items := []revDoc{
				{Key: keys[0], Rev: stale[keys[0]], Name: "new"},
				{Key: keys[1], Rev: current[keys[1]], Name: "new"},
				{Key: keys[2], Name: "new"},
				{Key: keys[3], Rev: "bogus", Name: "new"},
			}
			var errs []error
			var got []string // the revisions answered
			next := func(read func() (string, error)) bool {
				rev, err := read()
				if errors.Is(err, io.EOF) || shared.IsNoMoreDocuments(err) {
					return false
				}
				errs, got = append(errs, err), append(got, rev)
				return true
			}
			switch method {
			case "replace":
				r, err := col.ReplaceDocumentsWithOptions(ctx, items, &arangodb.CollectionDocumentReplaceOptions{IgnoreRevs: &no})
				if err != nil {
					t.Fatal(err)
				}
				for next(func() (string, error) { m, err := r.Read(); return m.Rev, err }) {
				}
			case "update":
				r, err := col.UpdateDocumentsWithOptions(ctx, items, &arangodb.CollectionDocumentUpdateOptions{IgnoreRevs: &no})
				if err != nil {
					t.Fatal(err)
				}
				for next(func() (string, error) { m, err := r.Read(); return m.Rev, err }) {
				}
			case "delete":
				r, err := col.DeleteDocumentsWithOptions(ctx, items, &arangodb.CollectionDocumentDeleteOptions{IgnoreRevs: &no})
				if err != nil {
					t.Fatal(err)
				}
				for next(func() (string, error) { var d revDoc; m, err := r.Read(&d); return m.Rev, err }) {
				}
			case "read":
				r, err := col.ReadDocumentsWithOptions(ctx, items, &arangodb.CollectionDocumentReadOptions{IgnoreRevs: &no})
				if err != nil {
					t.Fatal(err)
				}
				for next(func() (string, error) { var d revDoc; m, err := r.Read(&d); return m.Rev, err }) {
				}
			}
			if len(errs) != len(items) {
				t.Fatalf("%d results for %d items: %v", len(errs), len(items), errs)
			}
			for i, k := range keys {
				failed := i == 0 || i == 3
				if failed {
					if !shared.IsArangoErrorWithErrorNum(errs[i], 1200) || errs[i].Error() != "conflict, _rev values do not match" {
						t.Errorf("%s: %v, want errorNum 1200", k, errs[i])
					}
					unchanged(t, col, k, current[k])
					continue
				}
				if errs[i] != nil {
					t.Errorf("%s: %v", k, errs[i])
					continue
				}
				var d revDoc
				meta, err := col.ReadDocument(ctx, k, &d)
				switch method {
				case "delete":
					if !shared.IsNotFound(err) {
						t.Errorf("%s not deleted: %v", k, err)
					}
				case "read":
					unchanged(t, col, k, current[k])
				default:
					if err != nil || d.Name != "new" || meta.Rev != got[i] || meta.Rev == current[k] {
						t.Errorf("%s not written: %+v %+v %v", k, meta, d, err)
					}
				}
			}
		})
	}

	// The error element as ArangoDB writes it, and the error codes header.
	stale, current := twoRevs(t, col, "raw")
	status, h, body := raw(t, url, http.MethodPatch, "/_db/g/_api/document/people?ignoreRevs=false", nil,
		[]any{map[string]any{"_key": "raw", "_rev": stale, "x": 1}})
	var elems []map[string]any
	if err := json.Unmarshal(body, &elems); err != nil || status != 202 || len(elems) != 1 {
		t.Fatalf("bulk answer %d %s %v", status, body, err)
	}
	want := map[string]any{"error": true, "errorNum": 1200.0, "errorMessage": "conflict, _rev values do not match", "_id": "people/raw", "_key": "raw", "_rev": current}
	if !mapsEqual(elems[0], want) || h.Get("X-Arango-Error-Codes") != "1200:1" {
		t.Errorf("error element %v, header %q; want %v", elems[0], h.Get("X-Arango-Error-Codes"), want)
	}
}

// raw makes a request with basic auth and returns its status, headers
// and body.
func raw(t *testing.T, url, method, path string, header map[string]string, body any) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("root", "secret")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

// mapsEqual compares two decoded JSON objects.
func mapsEqual(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestRevisionHeaders: the headers and bodies as ArangoDB sends them:
// the ETag of reads and single writes, 304 without a body for
// If-None-Match of the current revision (GET and HEAD), and the 412 body
// with the document's current _id, _key and _rev for If-Match of another
// one (on reads, replace, update and delete: "bogus" deletes nothing).
func TestRevisionHeaders(t *testing.T) {
	url, col := revServer(t, "http1-basic")
	stale, current := twoRevs(t, col, "a")
	doc := "/_db/g/_api/document/people/a"
	conflict := map[string]any{"error": true, "code": 412.0, "errorNum": 1200.0, "errorMessage": "conflict, _rev values do not match",
		"_id": "people/a", "_key": "a", "_rev": current}
	cases := []struct {
		name   string
		method string
		header map[string]string
		query  string
		body   any
		status int
		// want is the JSON body (nil: none or not checked); etag the ETag
		// header ("" none).
		want map[string]any
		etag string
	}{
		{"GET", "GET", nil, "", nil, 200, nil, current},
		{"GET If-None-Match current", "GET", map[string]string{"If-None-Match": `"` + current + `"`}, "", nil, 304, nil, current},
		{"GET If-None-Match unquoted", "GET", map[string]string{"If-None-Match": current}, "", nil, 304, nil, current},
		{"HEAD If-None-Match current", "HEAD", map[string]string{"If-None-Match": `"` + current + `"`}, "", nil, 304, nil, current},
		{"GET If-None-Match stale", "GET", map[string]string{"If-None-Match": `"` + stale + `"`}, "", nil, 200, nil, current},
		{"GET If-Match current", "GET", map[string]string{"If-Match": `"` + current + `"`}, "", nil, 200, nil, current},
		{"GET If-Match stale", "GET", map[string]string{"If-Match": `"` + stale + `"`}, "", nil, 412, conflict, current},
		{"HEAD If-Match stale", "HEAD", map[string]string{"If-Match": stale}, "", nil, 412, nil, current},
		{"DELETE If-Match bogus", "DELETE", map[string]string{"If-Match": `"bogus"`}, "", nil, 412, conflict, current},
		{"PUT If-Match stale", "PUT", map[string]string{"If-Match": stale}, "", map[string]any{"x": 1}, 412, conflict, current},
		{"PATCH If-Match stale", "PATCH", map[string]string{"If-Match": stale}, "", map[string]any{"x": 1}, 412, conflict, current},
		{"PATCH _rev stale ignoreRevs=false", "PATCH", nil, "?ignoreRevs=false", map[string]any{"_rev": stale, "x": 1}, 412, conflict, current},
		{"PUT _rev stale ignoreRevs=false", "PUT", nil, "?ignoreRevs=false", map[string]any{"_rev": stale, "x": 1}, 412, conflict, current},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, h, body := raw(t, url, c.method, doc+c.query, c.header, c.body)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, body)
			}
			if got := h.Get("Etag"); got != `"`+c.etag+`"` {
				t.Errorf("ETag %q, want %q", got, c.etag)
			}
			switch {
			case status == 304 || c.method == "HEAD":
				if len(body) != 0 {
					t.Errorf("a body: %s", body)
				}
			case c.want != nil:
				var got map[string]any
				if err := json.Unmarshal(body, &got); err != nil || !mapsEqual(got, c.want) {
					t.Errorf("body %s, want %v", body, c.want)
				}
			case status == 200:
				var got revDoc
				if err := json.Unmarshal(body, &got); err != nil || got.Rev != current || got.Name != "second" {
					t.Errorf("body %s", body)
				}
			}
		})
	}
	unchanged(t, col, "a", current)

	// A single write answers its new revision as the ETag too.
	status, h, body := raw(t, url, "PATCH", doc, map[string]string{"If-Match": current}, map[string]any{"x": 2})
	var meta map[string]any
	_ = json.Unmarshal(body, &meta)
	if status != 202 || h.Get("Etag") != `"`+meta["_rev"].(string)+`"` || meta["_oldRev"] != current {
		t.Errorf("PATCH with the current revision: %d %v %s", status, h, body)
	}

	// If-None-Match through the driver: an error for the current revision,
	// the document for another one.
	ctx := context.Background()
	var d revDoc
	if _, err := col.ReadDocumentWithOptions(ctx, "a", &d, &arangodb.CollectionDocumentReadOptions{IfNoneMatch: meta["_rev"].(string)}); err == nil {
		t.Error("If-None-Match of the current revision read the document")
	}
	if m, err := col.ReadDocumentWithOptions(ctx, "a", &d, &arangodb.CollectionDocumentReadOptions{IfNoneMatch: current}); err != nil || m.Rev != meta["_rev"] {
		t.Errorf("If-None-Match of an earlier revision: %+v %v", m, err)
	}
}

// TestVersionAttribute: external versioning on replace, update and
// insert with overwriteMode replace or update: the write is made only
// when the given version is higher than the stored one (both rounded
// down), or either is missing or not a number; otherwise the answer is
// success with the stored document as old and new, unchanged.
func TestVersionAttribute(t *testing.T) {
	ctx := context.Background()
	_, col := revServer(t, "h2c-jwt")
	type op func(key string, doc map[string]any, newDoc, oldDoc *map[string]any) (arangodb.DocumentMetaWithOldRev, error)
	replace := func(key string, doc map[string]any, newDoc, oldDoc *map[string]any) (arangodb.DocumentMetaWithOldRev, error) {
		m, err := col.ReplaceDocumentWithOptions(ctx, key, doc, &arangodb.CollectionDocumentReplaceOptions{VersionAttribute: "v", NewObject: newDoc, OldObject: oldDoc})
		return m.DocumentMetaWithOldRev, err
	}
	update := func(key string, doc map[string]any, newDoc, oldDoc *map[string]any) (arangodb.DocumentMetaWithOldRev, error) {
		m, err := col.UpdateDocumentWithOptions(ctx, key, doc, &arangodb.CollectionDocumentUpdateOptions{VersionAttribute: "v", NewObject: newDoc, OldObject: oldDoc})
		return m.DocumentMetaWithOldRev, err
	}
	insert := func(mode arangodb.CollectionDocumentCreateOverwriteMode) op {
		return func(key string, doc map[string]any, newDoc, oldDoc *map[string]any) (arangodb.DocumentMetaWithOldRev, error) {
			doc["_key"] = key
			m, err := col.CreateDocumentWithOptions(ctx, doc, &arangodb.CollectionDocumentCreateOptions{VersionAttribute: "v", OverwriteMode: mode.New(), NewObject: newDoc, OldObject: oldDoc})
			return arangodb.DocumentMetaWithOldRev{DocumentMeta: m.DocumentMeta}, err
		}
	}
	ops := map[string]op{"replace": replace, "update": update,
		"insert-replace": insert(arangodb.CollectionDocumentCreateOverwriteModeReplace),
		"insert-update":  insert(arangodb.CollectionDocumentCreateOverwriteModeUpdate)}
	versions := []struct {
		name          string
		stored, given any // nil: the attribute left out
		written       bool
	}{
		{"higher", 23, 99, true},
		{"lower", 23, 19, false},
		{"equal", 23, 23, false},
		{"higher by a fraction", 23, 23.9, false},
		{"next whole number", 23.5, 24, true},
		{"large", 1 << 60, 1<<60 + 1, true},
		{"given missing", 23, nil, true},
		{"stored missing", nil, 1, true},
		{"given not a number", 23, "99", true},
		{"given negative", 23, -1, true},
	}
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		for i, v := range versions {
			t.Run(name+"/"+v.name, func(t *testing.T) {
				key := strings.ReplaceAll(name, "-", "") + string(rune('a'+i))
				stored := map[string]any{"_key": key, "name": "stored"}
				if v.stored != nil {
					stored["v"] = v.stored
				}
				created, err := col.CreateDocument(ctx, stored)
				if err != nil {
					t.Fatal(err)
				}
				given := map[string]any{"name": "given"}
				if v.given != nil {
					given["v"] = v.given
				}
				var newDoc, oldDoc map[string]any
				m, err := ops[name](key, given, &newDoc, &oldDoc)
				if err != nil {
					t.Fatal(err)
				}
				var now map[string]any
				meta, err := col.ReadDocument(ctx, key, &now)
				if err != nil {
					t.Fatal(err)
				}
				if v.written {
					if m.Rev == created.Rev || meta.Rev != m.Rev || now["name"] != "given" || newDoc["_rev"] != m.Rev || oldDoc["_rev"] != created.Rev {
						t.Errorf("not written: answer %+v, stored %v, new %v, old %v", m, now, newDoc, oldDoc)
					}
					return
				}
				// (An insert's answer has no _oldRev for the driver to read.)
				if m.Rev != created.Rev || !strings.HasPrefix(name, "insert") && m.OldRev != created.Rev || meta.Rev != created.Rev || now["name"] != "stored" ||
					newDoc["_rev"] != created.Rev || oldDoc["_rev"] != created.Rev || newDoc["name"] != "stored" {
					t.Errorf("written: answer %+v, stored %v, new %v, old %v", m, now, newDoc, oldDoc)
				}
			})
		}
	}

	// A new key is inserted whatever its version; in a bulk each element
	// is compared on its own.
	ow := arangodb.CollectionDocumentCreateOverwriteModeReplace
	if _, err := col.CreateDocumentWithOptions(ctx, map[string]any{"_key": "fresh", "v": 1}, &arangodb.CollectionDocumentCreateOptions{VersionAttribute: "v", OverwriteMode: &ow}); err != nil {
		t.Fatal(err)
	}
	createAll(t, col, []map[string]any{{"_key": "b1", "v": 5}, {"_key": "b2", "v": 5}}, arangodb.CollectionDocumentCreateOverwriteModeConflict)
	r, err := col.UpdateDocumentsWithOptions(ctx, []map[string]any{{"_key": "b1", "v": 4, "x": 1}, {"_key": "b2", "v": 6, "x": 1}}, &arangodb.CollectionDocumentUpdateOptions{VersionAttribute: "v"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, err := r.Read()
		if shared.IsNoMoreDocuments(err) || errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for key, wantX := range map[string]any{"b1": nil, "b2": 1.0} {
		var d map[string]any
		if _, err := col.ReadDocument(ctx, key, &d); err != nil || d["x"] != wantX {
			t.Errorf("%s after the bulk: %v %v, want x %v", key, d, err, wantX)
		}
	}
}

// TestRevisionRace: concurrent writes naming the same revision by
// If-Match: exactly one wins, the others fail with 412 (or, after a
// delete won, 404) and write nothing; the document holds the winner's
// write under the revision it was answered.
func TestRevisionRace(t *testing.T) {
	ctx := context.Background()
	const racers = 20
	for _, transport := range []string{"http1-basic", "h2c-jwt"} {
		for _, kind := range []string{"update", "replace", "delete"} {
			t.Run(transport+"/"+kind, func(t *testing.T) {
				_, col := revServer(t, transport)
				_, rev := twoRevs(t, col, "x")
				var wg sync.WaitGroup
				var mu sync.Mutex
				var winners []int
				var winRev string
				start := make(chan struct{})
				for i := range racers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						var newRev string
						var err error
						switch kind {
						case "update":
							var m arangodb.CollectionDocumentUpdateResponse
							m, err = col.UpdateDocumentWithOptions(ctx, "x", map[string]any{"winner": i}, &arangodb.CollectionDocumentUpdateOptions{IfMatch: rev})
							newRev = m.Rev
						case "replace":
							var m arangodb.CollectionDocumentReplaceResponse
							m, err = col.ReplaceDocumentWithOptions(ctx, "x", map[string]any{"name": "second", "winner": i}, &arangodb.CollectionDocumentReplaceOptions{IfMatch: rev})
							newRev = m.Rev
						case "delete":
							_, err = col.DeleteDocumentWithOptions(ctx, "x", &arangodb.CollectionDocumentDeleteOptions{IfMatch: rev})
						}
						mu.Lock()
						defer mu.Unlock()
						switch {
						case err == nil:
							winners, winRev = append(winners, i), newRev
						case isConflict(err), kind == "delete" && shared.IsNotFound(err):
						default:
							t.Errorf("racer %d: %v", i, err)
						}
					}()
				}
				close(start)
				wg.Wait()
				if len(winners) != 1 {
					t.Fatalf("%d winners %v, want exactly 1", len(winners), winners)
				}
				var d map[string]any
				meta, err := col.ReadDocument(ctx, "x", &d)
				if kind == "delete" {
					if !shared.IsNotFound(err) {
						t.Errorf("after the delete won: %v", err)
					}
					return
				}
				if err != nil || meta.Rev != winRev || d["winner"] != float64(winners[0]) {
					t.Errorf("stored %v under %s, want winner %d under %s: %v", d, meta.Rev, winners[0], winRev, err)
				}
			})
		}
	}
}
