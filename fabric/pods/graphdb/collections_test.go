package graphdb_test

import (
	"context"
	"slices"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/arangodb/go-driver/v2/utils"
)

// TestCollections: through the driver, document and edge collections are
// created, listed, found, counted, truncated and dropped, with
// ArangoDB's errors for a duplicate, a bad name, a missing collection and
// a system collection dropped without isSystem.
func TestCollections(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "http1-basic", "g")
	if _, err := db.CreateCollectionV2(ctx, "people", nil); err != nil {
		t.Fatal(err)
	}
	knows, err := db.CreateCollectionV2(ctx, "knows", &arangodb.CreateCollectionPropertiesV2{Type: utils.NewType(arangodb.CollectionTypeEdge)})
	if err != nil {
		t.Fatal(err)
	}
	props, err := knows.Properties(ctx)
	if err != nil || props.Type != arangodb.CollectionTypeEdge {
		t.Errorf("edge collection properties: %+v %v", props, err)
	}
	if _, err := db.CreateCollectionV2(ctx, "people", nil); !shared.IsArangoErrorWithErrorNum(err, 1207) {
		t.Errorf("a duplicate collection: %v", err)
	}
	for _, bad := range []string{"1people", " leading space", "trailing space ", "has/slash", "_sys"} {
		if _, err := db.CreateCollectionV2(ctx, bad, nil); !shared.IsArangoErrorWithErrorNum(err, 1208) {
			t.Errorf("collection name %q: %v", bad, err)
		}
	}
	if _, err := db.CreateCollectionV2(ctx, "_audit", &arangodb.CreateCollectionPropertiesV2{IsSystem: utils.NewType(true)}); err != nil {
		t.Errorf("a system collection: %v", err)
	}
	list, err := db.Collections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, col := range list {
		names = append(names, col.Name())
	}
	if !slices.Equal(names, []string{"_audit", "knows", "people"}) {
		t.Errorf("collections %v", names)
	}
	if ok, err := db.CollectionExists(ctx, "nope"); ok || err != nil {
		t.Errorf("a missing collection exists: %v %v", ok, err)
	}
	if _, err := db.GetCollection(ctx, "nope", nil); !shared.IsArangoErrorWithErrorNum(err, 1203) {
		t.Errorf("a missing collection: %v", err)
	}
	people, err := db.GetCollection(ctx, "people", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := people.Count(ctx); n != 0 || err != nil {
		t.Errorf("count %d %v", n, err)
	}
	if err := people.Truncate(ctx); err != nil {
		t.Errorf("truncate: %v", err)
	}
	audit, _ := db.GetCollection(ctx, "_audit", nil)
	if err := audit.Remove(ctx); !shared.IsArangoErrorWithErrorNum(err, 11) {
		t.Errorf("a system collection dropped without isSystem: %v", err)
	}
	if err := audit.RemoveWithOptions(ctx, &arangodb.RemoveCollectionOptions{IsSystem: utils.NewType(true)}); err != nil {
		t.Errorf("a system collection dropped with isSystem: %v", err)
	}
	if err := people.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := db.CollectionExists(ctx, "people"); ok {
		t.Error("a dropped collection exists")
	}
}
