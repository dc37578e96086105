package graphdb_test

import (
	"context"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/utils"
)

// TestImport: /_api/import through the driver, in each body type, with a
// bad line and a duplicate counted as errors, onDuplicate modes, edges
// with prefixes, and complete=true storing nothing when a line fails.
func TestImport(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "http1-basic", "g")
	people, _ := db.CreateCollectionV2(ctx, "people", nil)
	stats, err := people.ImportDocuments(ctx, "{\"_key\":\"a\",\"n\":1}\n\n{\"_key\":\"b\"}\nnot json\n{\"_key\":\"a\"}\n", arangodb.ImportDocumentTypeDocuments)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Created != 2 || stats.Errors != 2 || stats.Empty != 1 {
		t.Errorf("documents: %+v", stats.CollectionDocumentImportStatistics)
	}
	// A JSON line stored as its text reads back with its system attributes.
	var a map[string]any
	if meta, err := people.ReadDocument(ctx, "a", &a); err != nil || a["_id"] != "people/a" || a["_key"] != "a" || a["n"] != float64(1) ||
		a["_rev"] != meta.Rev || meta.Rev == "" {
		t.Errorf("an imported line: %v %+v %v", a, meta, err)
	}
	stats, err = people.ImportDocuments(ctx, `[{"_key":"c"},{"_key":"d"}]`, arangodb.ImportDocumentTypeArray)
	if err != nil || stats.Created != 2 {
		t.Errorf("array: %+v %v", stats, err)
	}
	stats, err = people.ImportDocuments(ctx, "[\"_key\",\"name\"]\n[\"e\",\"Eve\"]\n[\"f\",\"Fay\"]\n", arangodb.ImportDocumentTypeTabular)
	if err != nil || stats.Created != 2 {
		t.Errorf("tabular: %+v %v", stats, err)
	}
	update := arangodb.ImportOnDuplicateUpdate
	stats, err = people.ImportDocumentsWithOptions(ctx, `[{"_key":"e","age":3},{"_key":"g"}]`, arangodb.ImportDocumentTypeAuto,
		&arangodb.CollectionDocumentImportOptions{OnDuplicate: &update})
	if err != nil || stats.Updated != 1 || stats.Created != 1 {
		t.Errorf("onDuplicate update: %+v %v", stats, err)
	}
	var eve map[string]any
	if _, err := people.ReadDocument(ctx, "e", &eve); eve["name"] != "Eve" || eve["age"] != float64(3) {
		t.Errorf("the updated document: %v %v", eve, err)
	}
	before, _ := people.Count(ctx)
	_, err = people.ImportDocumentsWithOptions(ctx, `[{"_key":"h"},{"_key":"a"}]`, arangodb.ImportDocumentTypeArray,
		&arangodb.CollectionDocumentImportOptions{Complete: utils.NewType(true)})
	if err == nil {
		t.Error("complete=true with a duplicate succeeded")
	}
	if after, _ := people.Count(ctx); after != before {
		t.Errorf("complete=true stored part of a failed import: %d -> %d", before, after)
	}
	knows, _ := db.CreateCollectionV2(ctx, "knows", &arangodb.CreateCollectionPropertiesV2{Type: utils.NewType(arangodb.CollectionTypeEdge)})
	stats, err = knows.ImportDocumentsWithOptions(ctx, `[{"_from":"a","_to":"b"},{"_from":"a"}]`, arangodb.ImportDocumentTypeArray,
		&arangodb.CollectionDocumentImportOptions{FromPrefix: utils.NewType("people"), ToPrefix: utils.NewType("people")})
	if err != nil || stats.Created != 1 || stats.Errors != 1 {
		t.Errorf("edges: %+v %v", stats, err)
	}
}
