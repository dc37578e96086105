package graphdb_test

import (
	"context"
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
