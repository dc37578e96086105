package graphdb_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/arangodb/go-driver/v2/utils"
)

type person struct {
	Key  string `json:"_key,omitempty"`
	Name string `json:"name"`
	Age  int    `json:"age,omitempty"`
	Team string `json:"team,omitempty"`
}

// createAll runs a bulk create and returns each item's key or error.
func createAll(t *testing.T, col arangodb.Collection, docs any, mode arangodb.CollectionDocumentCreateOverwriteMode) ([]string, []error) {
	t.Helper()
	r, err := col.CreateDocumentsWithOptions(context.Background(), docs, &arangodb.CollectionDocumentCreateOptions{OverwriteMode: &mode})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var errs []error
	for {
		meta, err := r.Read()
		if errors.Is(err, io.EOF) || shared.IsNoMoreDocuments(err) {
			return keys, errs
		}
		keys, errs = append(keys, meta.Key), append(errs, err)
	}
}

// TestDocuments: single and bulk creates through the driver, each
// overwriteMode on existing keys, per-document errors in a bulk (a bad
// key, a duplicate, not an object), edges that need _from and _to, and
// the errors of a missing document and collection.
func TestDocuments(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "http1-basic", "g")
	people, err := db.CreateCollectionV2(ctx, "people", nil)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := people.CreateDocument(ctx, person{Key: "alice", Name: "Alice", Age: 30})
	if err != nil || meta.Key != "alice" || meta.ID != "people/alice" || meta.Rev == "" {
		t.Fatalf("create: %+v %v", meta, err)
	}
	var got person
	if _, err := people.ReadDocument(ctx, "alice", &got); err != nil || got.Name != "Alice" || got.Age != 30 {
		t.Fatalf("read: %+v %v", got, err)
	}
	if _, err := people.CreateDocument(ctx, person{Key: "alice", Name: "again"}); !shared.IsArangoErrorWithErrorNum(err, 1210) {
		t.Errorf("a duplicate key: %v", err)
	}
	if _, err := people.CreateDocument(ctx, person{Key: "bad key/x", Name: "x"}); !shared.IsArangoErrorWithErrorNum(err, 1221) {
		t.Errorf("a bad key: %v", err)
	}
	if _, err := people.ReadDocument(ctx, "nobody", &got); !shared.IsNotFound(err) {
		t.Errorf("a missing document: %v", err)
	}
	meta, err = people.CreateDocument(ctx, map[string]any{"name": "no key"})
	if err != nil || meta.Key == "" {
		t.Errorf("a generated key: %+v %v", meta, err)
	}

	// A bulk with per-document errors: the good ones are stored.
	keys, errs := createAll(t, people, []any{
		person{Key: "bob", Name: "Bob"}, person{Key: "alice", Name: "dup"}, person{Key: "b@d key", Name: "x"}, "not an object", person{Key: "carol", Name: "Carol"},
	}, arangodb.CollectionDocumentCreateOverwriteModeConflict)
	want := []int{0, 1210, 1221, 1227, 0}
	if len(errs) != len(want) {
		t.Fatalf("bulk: %d results, want %d: %v %v", len(errs), len(want), keys, errs)
	}
	for i, num := range want {
		if num == 0 && errs[i] != nil || num != 0 && !shared.IsArangoErrorWithErrorNum(errs[i], num) {
			t.Errorf("bulk item %d: %v, want errorNum %d", i, errs[i], num)
		}
	}
	if n, _ := people.Count(ctx); n != 4 {
		t.Errorf("count %d, want 4 (alice, the generated one, bob, carol)", n)
	}

	// Each overwriteMode on an existing key.
	createAll(t, people, []any{map[string]any{"_key": "bob", "name": "ignored"}}, arangodb.CollectionDocumentCreateOverwriteModeIgnore)
	if _, err := people.ReadDocument(ctx, "bob", &got); got.Name != "Bob" {
		t.Errorf("ignore changed bob: %+v %v", got, err)
	}
	createAll(t, people, []any{map[string]any{"_key": "bob", "team": "red"}}, arangodb.CollectionDocumentCreateOverwriteModeUpdate)
	got = person{}
	if _, err := people.ReadDocument(ctx, "bob", &got); got.Name != "Bob" || got.Team != "red" {
		t.Errorf("update: %+v %v", got, err)
	}
	createAll(t, people, []any{map[string]any{"_key": "bob", "name": "Robert"}}, arangodb.CollectionDocumentCreateOverwriteModeReplace)
	got = person{}
	if _, err := people.ReadDocument(ctx, "bob", &got); got.Name != "Robert" || got.Team != "" {
		t.Errorf("replace: %+v %v", got, err)
	}

	// Edges need _from and _to as collection/key handles.
	knows, err := db.CreateCollectionV2(ctx, "knows", &arangodb.CreateCollectionPropertiesV2{Type: utils.NewType(arangodb.CollectionTypeEdge)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := knows.CreateDocument(ctx, map[string]any{"_from": "people/alice", "_to": "people/bob"}); err != nil {
		t.Errorf("an edge: %v", err)
	}
	for _, bad := range []map[string]any{{"_from": "people/alice"}, {"_from": "alice", "_to": "people/bob"}} {
		if _, err := knows.CreateDocument(ctx, bad); !shared.IsArangoErrorWithErrorNum(err, 1233) {
			t.Errorf("edge %v: %v", bad, err)
		}
	}
	missing, _ := db.GetCollection(ctx, "knows", nil)
	_ = knows.Remove(ctx)
	if _, err := missing.CreateDocument(ctx, map[string]any{"x": 1}); !shared.IsArangoErrorWithErrorNum(err, 1203) {
		t.Errorf("a missing collection: %v", err)
	}
}

// TestDocumentChanges: update (a patch), replace and delete of one
// document, and the bulk read and delete of several with a missing one,
// through the driver.
func TestDocumentChanges(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "h2c-jwt", "g")
	people, err := db.CreateCollectionV2(ctx, "people", nil)
	if err != nil {
		t.Fatal(err)
	}
	createAll(t, people, []person{{Key: "a", Name: "Ann", Age: 1}, {Key: "b", Name: "Ben"}, {Key: "c", Name: "Cy"}}, arangodb.CollectionDocumentCreateOverwriteModeConflict)
	up, err := people.UpdateDocument(ctx, "a", map[string]any{"team": "red"})
	if err != nil || up.OldRev == "" || up.Rev == up.OldRev {
		t.Fatalf("update: %+v %v", up, err)
	}
	var got person
	if _, err := people.ReadDocument(ctx, "a", &got); got.Name != "Ann" || got.Team != "red" || got.Age != 1 {
		t.Errorf("after update: %+v %v", got, err)
	}
	if _, err := people.ReplaceDocument(ctx, "a", map[string]any{"name": "Anna"}); err != nil {
		t.Fatal(err)
	}
	got = person{}
	if _, err := people.ReadDocument(ctx, "a", &got); got.Name != "Anna" || got.Team != "" {
		t.Errorf("after replace: %+v %v", got, err)
	}
	if _, err := people.UpdateDocument(ctx, "nobody", map[string]any{"x": 1}); !shared.IsNotFound(err) {
		t.Errorf("update of a missing document: %v", err)
	}
	r, err := people.ReadDocuments(ctx, []string{"a", "nobody", "b"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var misses int
	for {
		var p person
		_, err := r.Read(&p)
		if errors.Is(err, io.EOF) || shared.IsNoMoreDocuments(err) {
			break
		}
		if shared.IsNotFound(err) {
			misses++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if len(names) != 2 || names[0] != "Anna" || names[1] != "Ben" || misses != 1 {
		t.Errorf("bulk read: %v, %d missing", names, misses)
	}
	if _, err := people.DeleteDocument(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := people.DeleteDocument(ctx, "a"); !shared.IsNotFound(err) {
		t.Errorf("a second delete: %v", err)
	}
	dr, err := people.DeleteDocuments(ctx, []string{"b", "nobody", "c"})
	if err != nil {
		t.Fatal(err)
	}
	var deleted, notFound int
	for {
		var old map[string]any
		_, err := dr.Read(&old)
		if errors.Is(err, io.EOF) || shared.IsNoMoreDocuments(err) {
			break
		}
		if shared.IsNotFound(err) {
			notFound++
		} else if err == nil {
			deleted++
		} else {
			t.Fatal(err)
		}
	}
	if deleted != 2 || notFound != 1 {
		t.Errorf("bulk delete: %d deleted, %d not found", deleted, notFound)
	}
	if n, _ := people.Count(ctx); n != 0 {
		t.Errorf("count after deletes: %d", n)
	}
}
