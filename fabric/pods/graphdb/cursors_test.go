package graphdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
)

// TestCursors: an AQL query through the driver, its results read across
// several batches with the count, bind parameters for a value and a
// collection, and ArangoDB's errors for a syntax error (1501 with the
// position), an unknown collection and a missing bind parameter.
func TestCursors(t *testing.T) {
	url := serve(t, t.TempDir())
	ctx := context.Background()
	for name, c := range clients(t, url, "root", "secret") {
		t.Run(name, func(t *testing.T) {
			if _, err := c.Version(ctx); err != nil {
				t.Fatal(err)
			}
			db, err := c.CreateDatabase(ctx, "q-"+name, nil)
			if err != nil {
				t.Fatal(err)
			}
			nums, err := db.CreateCollectionV2(ctx, "nums", nil)
			if err != nil {
				t.Fatal(err)
			}
			var docs []any
			for i := 1; i <= 25; i++ {
				docs = append(docs, map[string]any{"_key": fmt.Sprintf("k%02d", i), "n": i})
			}
			createAll(t, nums, docs, arangodb.CollectionDocumentCreateOverwriteModeConflict)
			cur, err := db.Query(ctx, "FOR d IN @@c FILTER d.n > @min SORT d.n RETURN d.n", &arangodb.QueryOptions{
				BindVars: map[string]any{"@c": "nums", "min": 3}, Count: true, BatchSize: 4})
			if err != nil {
				t.Fatal(err)
			}
			if cur.Count() != 22 {
				t.Errorf("count %d, want 22", cur.Count())
			}
			var got []int
			for cur.HasMore() {
				var n int
				if _, err := cur.ReadDocument(ctx, &n); err != nil {
					t.Fatal(err)
				}
				got = append(got, n)
			}
			if err := cur.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			if len(got) != 22 || got[0] != 4 || got[21] != 25 {
				t.Errorf("results %v", got)
			}

			// A cursor closed before its end.
			cur, err = db.Query(ctx, "FOR d IN nums RETURN d", &arangodb.QueryOptions{BatchSize: 2})
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if meta, err := cur.ReadDocument(ctx, &doc); err != nil || meta.Key != "k01" {
				t.Errorf("first document: %+v %v", meta, err)
			}
			if err := cur.Close(); err != nil {
				t.Errorf("close early: %v", err)
			}

			_, err = db.Query(ctx, "FOR d IN nums RETRN d", nil)
			if !shared.IsArangoErrorWithErrorNum(err, 1501) || !strings.Contains(err.Error(), "near 'RETRN d' at position 1:15") {
				t.Errorf("a syntax error: %v", err)
			}
			if _, err := db.Query(ctx, "FOR d IN nope RETURN d", nil); !shared.IsArangoErrorWithErrorNum(err, 1203) {
				t.Errorf("an unknown collection: %v", err)
			}
			if _, err := db.Query(ctx, "FOR d IN nums FILTER d.n == @x RETURN d", nil); !shared.IsArangoErrorWithErrorNum(err, 1551) {
				t.Errorf("a missing bind parameter: %v", err)
			}
		})
	}
}

// TestTraversals: traversals over a small known graph through the driver,
// results written by hand: a named graph and an edge collection, depth
// ranges, INBOUND, the path variable, PRUNE and a shortest path.
//
//	a -> b -> c -> d, and a -> c
func TestTraversals(t *testing.T) {
	url := serve(t, t.TempDir())
	ctx := context.Background()
	c := clients(t, url, "root", "secret")["http1-basic"]
	db, err := c.CreateDatabase(ctx, "g", nil)
	if err != nil {
		t.Fatal(err)
	}
	def := &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{{Collection: "knows", From: []string{"people"}, To: []string{"people"}}}}
	if _, err := db.CreateGraph(ctx, "social", def, nil); err != nil {
		t.Fatal(err)
	}
	people, _ := db.GetCollection(ctx, "people", nil)
	knows, _ := db.GetCollection(ctx, "knows", nil)
	var vs []any
	for _, k := range []string{"a", "b", "c", "d"} {
		vs = append(vs, map[string]any{"_key": k})
	}
	createAll(t, people, vs, arangodb.CollectionDocumentCreateOverwriteModeConflict)
	createAll(t, knows, []any{
		map[string]any{"_key": "ab", "_from": "people/a", "_to": "people/b"},
		map[string]any{"_key": "ac", "_from": "people/a", "_to": "people/c"},
		map[string]any{"_key": "bc", "_from": "people/b", "_to": "people/c"},
		map[string]any{"_key": "cd", "_from": "people/c", "_to": "people/d"},
	}, arangodb.CollectionDocumentCreateOverwriteModeConflict)
	for _, q := range []struct{ query, want string }{
		{"FOR v IN 1..1 OUTBOUND 'people/a' GRAPH 'social' SORT v._key RETURN v._key", `["b","c"]`},
		{"FOR v, e, p IN 1..3 OUTBOUND 'people/a' knows RETURN p.vertices[*]._key",
			`[["a","b"],["a","b","c"],["a","b","c","d"],["a","c"],["a","c","d"]]`},
		{"FOR v IN 1..2 INBOUND 'people/d' knows RETURN v._key", `["c","a","b"]`},
		{"FOR v, e IN 1..1 OUTBOUND 'people/b' knows RETURN e._key", `["bc"]`},
		{"FOR v IN 1..3 OUTBOUND 'people/a' knows PRUNE v._key == 'b' RETURN v._key", `["b","c","d"]`},
		{"FOR v IN 0..1 OUTBOUND 'people/c' knows RETURN v._key", `["c","d"]`},
		{"FOR v IN 1..3 OUTBOUND 'people/a' knows OPTIONS {order: 'bfs'} RETURN v._key", `["b","c","c","d","d"]`},
		{"RETURN [LENGTH(people), LENGTH(knows), knows[*]._key]", `[[4,4,["ab","ac","bc","cd"]]]`},
		{"RETURN [DOCUMENT('people/b')._key, DOCUMENT('people', 'c')._key, DOCUMENT('people', ['a', 'zz', 'd'])[*]._key, DOCUMENT('people/zz')]",
			`[["b","c",["a","d"],null]]`},
		{"FOR v, e, p IN 1..2 OUTBOUND 'people/a' knows OPTIONS {bfs: true, uniqueVertices: 'global'} RETURN p.vertices[*]._key",
			`[["a","b"],["a","c"],["a","c","d"]]`},
		{"FOR v, e, p IN 1..2 OUTBOUND 'people/a' knows OPTIONS {uniqueVertices: 'global'} RETURN p.vertices[*]._key",
			`[["a","b"],["a","b","c"]]`},
		{"FOR v IN OUTBOUND SHORTEST_PATH 'people/a' TO 'people/d' knows RETURN v._key", `["a","c","d"]`},
		{"FOR v, e IN ANY SHORTEST_PATH 'people/d' TO 'people/b' GRAPH 'social' RETURN [v._key, e._key]", `[["d",null],["c","cd"],["b","bc"]]`},
	} {
		cur, err := db.Query(ctx, q.query, nil)
		if err != nil {
			t.Errorf("%s: %v", q.query, err)
			continue
		}
		var got []any
		for cur.HasMore() {
			var x any
			if _, err := cur.ReadDocument(ctx, &x); err != nil {
				t.Fatal(err)
			}
			got = append(got, x)
		}
		cur.Close()
		data, _ := json.Marshal(got)
		if string(data) != q.want {
			t.Errorf("%s:\n got %s\nwant %s", q.query, data, q.want)
		}
	}
	if _, err := db.Query(ctx, "FOR v IN 1..2 OUTBOUND 'people/a' GRAPH 'nope' RETURN v", nil); !shared.IsArangoErrorWithErrorNum(err, 1924) {
		t.Errorf("an unknown graph: %v", err)
	}
}
