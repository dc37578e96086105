package graphdb_test

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
)

// TestGraphs: a named graph through the driver creates its missing
// collections (the edge one as edges), is listed and read, refuses a
// second of its name and a document collection as its edges, and is
// dropped with its collections; a vertex's edges are read by direction.
func TestGraphs(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "h2c-jwt", "g")
	def := &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{{Collection: "knows", From: []string{"people"}, To: []string{"people"}}},
		OrphanCollections: []string{"places"}}
	g, err := db.CreateGraph(ctx, "social", def, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g.Name() != "social" {
		t.Errorf("graph %q", g.Name())
	}
	knows, err := db.GetCollection(ctx, "knows", nil)
	if err != nil {
		t.Fatal(err)
	}
	if props, _ := knows.Properties(ctx); props.Type != arangodb.CollectionTypeEdge {
		t.Errorf("knows is type %d", props.Type)
	}
	if _, err := db.CreateGraph(ctx, "social", def, nil); !shared.IsArangoErrorWithErrorNum(err, 1925) {
		t.Errorf("a second graph of the name: %v", err)
	}
	bad := &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{{Collection: "people", From: []string{"x"}, To: []string{"x"}}}}
	if _, err := db.CreateGraph(ctx, "bad", bad, nil); !shared.IsArangoErrorWithErrorNum(err, 1944) {
		t.Errorf("a document collection as edges: %v", err)
	}
	if ok, err := db.GraphExists(ctx, "nope"); ok || err != nil {
		t.Errorf("a missing graph exists: %v %v", ok, err)
	}
	r, err := db.Graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for {
		g, err := r.Read()
		if shared.IsNoMoreDocuments(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, g.Name())
	}
	if !slices.Equal(names, []string{"social"}) {
		t.Errorf("graphs %v", names)
	}

	createAll(t, knows, []any{
		map[string]any{"_key": "ab", "_from": "people/a", "_to": "people/b"},
		map[string]any{"_key": "ac", "_from": "people/a", "_to": "people/c"},
		map[string]any{"_key": "ca", "_from": "people/c", "_to": "people/a"},
	}, arangodb.CollectionDocumentCreateOverwriteModeConflict)
	for dir, want := range map[arangodb.EdgeDirection][]string{
		arangodb.EdgeDirectionOut: {"ab", "ac"}, arangodb.EdgeDirectionIn: {"ca"}, arangodb.EdgeDirectionAny: {"ab", "ac", "ca"},
	} {
		edges, err := db.GetEdges(ctx, "knows", "people/a", &arangodb.GetEdgesOptions{Direction: dir})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, e := range edges {
			keys = append(keys, e.Key)
		}
		sort.Strings(keys)
		if !slices.Equal(keys, want) {
			t.Errorf("edges %s of people/a: %v, want %v", dir, keys, want)
		}
	}

	if err := g.Remove(ctx, &arangodb.RemoveGraphOptions{DropCollections: true}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"knows", "people", "places"} {
		if ok, _ := db.CollectionExists(ctx, name); ok {
			t.Errorf("%s outlived its graph", name)
		}
	}
	if _, err := db.Graph(ctx, "social", nil); !shared.IsArangoErrorWithErrorNum(err, 1924) {
		t.Errorf("a dropped graph: %v", err)
	}
}

// TestGraphDocuments: vertices and edges through a graph: created, read,
// updated and deleted; an edge into a collection outside its definition
// (1947) or to a missing vertex (1202) is refused.
func TestGraphDocuments(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "http1-basic", "g")
	def := &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{{Collection: "knows", From: []string{"people"}, To: []string{"people"}}},
		OrphanCollections: []string{"places"}}
	g, err := db.CreateGraph(ctx, "social", def, nil)
	if err != nil {
		t.Fatal(err)
	}
	people, err := g.VertexCollection(ctx, "people")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if _, err := people.CreateVertex(ctx, map[string]any{"_key": k, "name": k}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var v map[string]any
	if err := people.GetVertex(ctx, "a", &v, nil); err != nil || v["name"] != "a" {
		t.Fatalf("get vertex: %v %v", v, err)
	}
	if _, err := people.UpdateVertex(ctx, "a", map[string]any{"age": 3}, nil); err != nil {
		t.Fatal(err)
	}
	knows, err := g.EdgeDefinition(ctx, "knows")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := knows.CreateEdge(ctx, map[string]any{"_key": "ab", "_from": "people/a", "_to": "people/b"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := knows.CreateEdge(ctx, map[string]any{"_from": "people/a", "_to": "places/x"}, nil); !shared.IsArangoErrorWithErrorNum(err, 1947) {
		t.Errorf("an edge outside its definition: %v", err)
	}
	if _, err := knows.CreateEdge(ctx, map[string]any{"_from": "people/a", "_to": "people/nobody"}, nil); !shared.IsNotFound(err) {
		t.Errorf("an edge to a missing vertex: %v", err)
	}
	var e map[string]any
	if err := knows.GetEdge(ctx, "ab", &e, nil); err != nil || e["_to"] != "people/b" {
		t.Errorf("get edge: %v %v", e, err)
	}
	if _, err := people.DeleteVertex(ctx, "b", nil); err != nil {
		t.Fatal(err)
	}
	if err := people.GetVertex(ctx, "b", &v, nil); !shared.IsNotFound(err) {
		t.Errorf("a deleted vertex: %v", err)
	}
}
