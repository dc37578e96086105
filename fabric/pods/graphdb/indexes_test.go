package graphdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/arangodb/go-driver/v2/arangodb"
)

// queryStats runs a query through /_api/cursor and returns its results
// and extra.stats.
func queryStats(t *testing.T, url, query string, binds map[string]any, options map[string]any) ([]any, map[string]any, map[string]any) {
	t.Helper()
	body := map[string]any{"query": query, "bindVars": binds, "batchSize": 1000}
	if options != nil {
		body["options"] = options
	}
	code, _, data := raw(t, url, "POST", "/_db/ix/_api/cursor", nil, body)
	if code != 201 {
		t.Fatalf("%s: %d %s", query, code, data)
	}
	var out struct {
		Result []any `json:"result"`
		Extra  struct {
			Stats map[string]any `json:"stats"`
			Plan  map[string]any `json:"plan"`
		} `json:"extra"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out.Result, out.Extra.Stats, out.Extra.Plan
}

// TestIndexedQueries: FILTERs on indexed attributes read only the
// matching documents (extra.stats counts them), through the primary,
// edge and persistent indexes; explain names the index; turning the
// use-indexes rule off scans.
func TestIndexedQueries(t *testing.T) {
	url := serve(t, t.TempDir())
	c := clients(t, url, "root", "secret")["http1-basic"]
	ctx := context.Background()
	db, err := c.CreateDatabase(ctx, "ix", nil)
	if err != nil {
		t.Fatal(err)
	}
	people, err := db.CreateCollectionV2(ctx, "people", nil)
	if err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := 0; i < 500; i++ {
		docs = append(docs, map[string]any{"_key": fmt.Sprint("p", i), "age": i % 50, "city": []string{"Oslo", "Rome"}[i%2], "tags": []string{fmt.Sprint("t", i%7)}})
	}
	createAll(t, people, docs, arangodb.CollectionDocumentCreateOverwriteModeConflict)
	knows, err := db.CreateCollectionV2(ctx, "knows", &arangodb.CreateCollectionPropertiesV2{Type: ptr(arangodb.CollectionTypeEdge)})
	if err != nil {
		t.Fatal(err)
	}
	createAll(t, knows, []any{map[string]any{"_from": "people/p1", "_to": "people/p2"}, map[string]any{"_from": "people/p1", "_to": "people/p3"},
		map[string]any{"_from": "people/p2", "_to": "people/p3"}}, arangodb.CollectionDocumentCreateOverwriteModeConflict)
	if _, _, err := people.EnsurePersistentIndex(ctx, []string{"age"}, &arangodb.CreatePersistentIndexOptions{Name: "by-age"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := people.EnsurePersistentIndex(ctx, []string{"city", "age"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := people.EnsurePersistentIndex(ctx, []string{"tags[*]"}, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query        string
		binds        map[string]any
		results      int
		scannedIndex float64
	}{
		{"FOR p IN people FILTER p.age == @a RETURN p", map[string]any{"a": 7}, 10, 10},
		{"FOR p IN people FILTER @a == p.age RETURN p._key", map[string]any{"a": 7}, 10, 10},
		{"FOR p IN people FILTER p.age >= 48 AND p.age < 50 RETURN p", nil, 20, 20},
		{"FOR p IN people FILTER p.city == 'Rome' AND p.age == 7 RETURN p", nil, 10, 10},
		{"FOR p IN people FILTER p.age IN [1, 2, 2] RETURN p", nil, 20, 20},
		{"FOR p IN people FILTER 't3' IN p.tags RETURN p", nil, 71, 71},
		{"FOR p IN people FILTER p._key == 'p42' RETURN p", nil, 1, 1},
		{"FOR k IN knows FILTER k._from == 'people/p1' RETURN k", nil, 2, 2},
		{"FOR p IN people FILTER p.age == 7 LIMIT 3 RETURN p", nil, 3, 3},
		{"FOR a IN [1, 2] FOR p IN people FILTER p.age == a RETURN p", nil, 20, 20},
		{"FOR p IN people FILTER p.age == 7 AND p.city == 'Oslo' RETURN p", nil, 0, 0}, // city, age: both fields
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res, stats, _ := queryStats(t, url, tc.query, tc.binds, nil)
			if len(res) != tc.results || stats["scannedIndex"] != tc.scannedIndex || stats["scannedFull"] != 0.0 {
				t.Errorf("%d results, stats %v; want %d results, scannedIndex %v and no full scan", len(res), stats, tc.results, tc.scannedIndex)
			}
		})
	}
	// Without the rule, or without an index on the attribute: a scan.
	res, stats, plan := queryStats(t, url, "FOR p IN people FILTER p.age == 7 RETURN p", nil, map[string]any{"optimizer": map[string]any{"rules": []string{"-all"}}, "profile": 2})
	if len(res) != 10 || stats["scannedFull"] != 500.0 || stats["scannedIndex"] != 0.0 || len(plan["rules"].([]any)) != 0 {
		t.Errorf("with -all: %d results, stats %v, plan rules %v", len(res), stats, plan["rules"])
	}
	_, stats, plan = queryStats(t, url, "FOR p IN people FILTER p.age == 7 RETURN p", nil, map[string]any{"profile": 2})
	if stats["scannedIndex"] != 10.0 || fmt.Sprint(plan["rules"]) != "[use-indexes]" {
		t.Errorf("profile 2: stats %v, plan rules %v", stats, plan["rules"])
	}
	// Explain names the index it would read through.
	code, _, data := raw(t, url, "POST", "/_db/ix/_api/explain", nil, map[string]any{"query": "FOR p IN people FILTER p.age == @a RETURN p", "bindVars": map[string]any{"a": 1}})
	var ex struct {
		Plan struct {
			Nodes []map[string]any `json:"nodes"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(data, &ex); code != 200 || err != nil {
		t.Fatalf("explain: %d %s", code, data)
	}
	found := false
	for _, n := range ex.Plan.Nodes {
		if n["type"] == "IndexNode" {
			found = fmt.Sprint(n["indexes"].([]any)[0].(map[string]any)["name"]) == "by-age"
		}
	}
	if !found {
		t.Errorf("explain: no IndexNode on by-age: %s", data)
	}
	// A unique index refuses a duplicate with 409 / 1210.
	code, _, data = raw(t, url, "POST", "/_db/ix/_api/index?collection=people", nil, map[string]any{"type": "persistent", "fields": []string{"city"}, "unique": true})
	if code != 409 {
		t.Errorf("unique index over duplicates: %d %s", code, data)
	}
}

// TestIndexAPI: listing, reading, making (201, then 200 for the same
// definition) and dropping indexes, and ArangoDB's errors.
func TestIndexAPI(t *testing.T) {
	url := serve(t, t.TempDir())
	if code, _, data := raw(t, url, "POST", "/_api/database", nil, map[string]any{"name": "ix"}); code != 201 {
		t.Fatalf("%d %s", code, data)
	}
	if code, _, data := raw(t, url, "POST", "/_db/ix/_api/collection", nil, map[string]any{"name": "c"}); code != 200 {
		t.Fatalf("%d %s", code, data)
	}
	tests := []struct {
		method, path string
		body         any
		code         int
	}{
		{"POST", "/_db/ix/_api/index?collection=c", map[string]any{"type": "persistent", "fields": []string{"a"}, "name": "ia"}, 201},
		{"POST", "/_db/ix/_api/index?collection=c", map[string]any{"type": "persistent", "fields": []string{"a"}, "name": "ia"}, 200},
		{"POST", "/_db/ix/_api/index?collection=c", map[string]any{"type": "ttl", "fields": []string{"t"}, "expireAfter": 1}, 201},
		{"POST", "/_db/ix/_api/index?collection=c", map[string]any{"type": "geo", "fields": []string{"p"}}, 400},
		{"POST", "/_db/ix/_api/index?collection=c", map[string]any{"type": "persistent"}, 400},
		{"POST", "/_db/ix/_api/index?collection=nope", map[string]any{"type": "persistent", "fields": []string{"a"}}, 404},
		{"GET", "/_db/ix/_api/index/c/ia", nil, 200},
		{"GET", "/_db/ix/_api/index/c/0", nil, 200},
		{"GET", "/_db/ix/_api/index/c/nope", nil, 404},
		{"DELETE", "/_db/ix/_api/index/c/0", nil, 403},
		{"DELETE", "/_db/ix/_api/index/c/ia", nil, 200},
		{"DELETE", "/_db/ix/_api/index/c/ia", nil, 404},
	}
	for _, tc := range tests {
		if code, _, data := raw(t, url, tc.method, tc.path, nil, tc.body); code != tc.code {
			t.Errorf("%s %s %v: %d %s, want %d", tc.method, tc.path, tc.body, code, data, tc.code)
		}
	}
	code, _, data := raw(t, url, "GET", "/_db/ix/_api/index?collection=c", nil, nil)
	var list struct {
		Indexes []map[string]any `json:"indexes"`
	}
	if err := json.Unmarshal(data, &list); code != 200 || err != nil || len(list.Indexes) != 2 || list.Indexes[0]["type"] != "primary" || list.Indexes[1]["type"] != "ttl" {
		t.Errorf("list: %d %s", code, data)
	}
	// The ttl index removes a document once its time is expireAfter past.
	past := time.Now().Add(-2 * time.Second).Unix()
	if code, _, data := raw(t, url, "POST", "/_db/ix/_api/document/c", nil, []any{map[string]any{"_key": "old", "t": past}, map[string]any{"_key": "new", "t": past + 3600}}); code != 202 && code != 201 {
		t.Fatalf("%d %s", code, data)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, _ := raw(t, url, "GET", "/_db/ix/_api/document/c/old", nil, nil)
		if code == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the expired document is still there after 10 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, _, _ := raw(t, url, "GET", "/_db/ix/_api/document/c/new", nil, nil); code != 200 {
		t.Errorf("the document that has not expired: %d", code)
	}
}
