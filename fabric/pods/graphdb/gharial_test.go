package graphdb_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb"
)

// definitionState is a graph definition's edge definitions as
// ["coll",[from],[to]] and its orphan collections, both sorted.
func definitionState(g *arangodb.GraphDefinition) (defs, orphans []string) {
	if g == nil {
		return []string{"no graph in the answer"}, nil
	}
	for _, d := range g.EdgeDefinitions {
		f, to := slices.Clone(d.From), slices.Clone(d.To)
		sort.Strings(f)
		sort.Strings(to)
		b, _ := json.Marshal([]any{d.Collection, f, to})
		defs = append(defs, string(b))
	}
	orphans = slices.Clone(g.OrphanCollections)
	sort.Strings(defs)
	sort.Strings(orphans)
	return defs, orphans
}

// graphState reads a graph back: its edge definitions as
// ["coll",[from],[to]] and its orphan collections, both sorted.
func graphState(t *testing.T, db arangodb.Database, name string) (defs, orphans []string) {
	t.Helper()
	g, err := db.Graph(context.Background(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return definitionState(&arangodb.GraphDefinition{EdgeDefinitions: g.EdgeDefinitions(), OrphanCollections: g.OrphanCollections()})
}

func def(coll string, from, to []string) string {
	b, _ := json.Marshal([]any{coll, from, to})
	return string(b)
}

func collectionExists(t *testing.T, db arangodb.Database, name string) bool {
	t.Helper()
	ok, err := db.CollectionExists(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestGraphEdits: through the driver's own graph calls, over both
// transports, vertex collections and edge definitions are added to a
// named graph, replaced and removed; vertex collections an edge definition
// no longer uses become orphans; dropCollection(s) drops only collections
// no other graph uses.
func TestGraphEdits(t *testing.T) {
	for _, transport := range []string{"http1-basic", "h2c-jwt"} {
		t.Run(transport, func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t, transport, "g")
			g, err := db.CreateGraph(ctx, "social", &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{
				{Collection: "knows", From: []string{"people"}, To: []string{"people"}}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.CreateGraph(ctx, "other", &arangodb.GraphDefinition{OrphanCollections: []string{"shared"}}, nil); err != nil {
				t.Fatal(err)
			}
			yes := true
			steps := []struct {
				name    string
				do      func() (*arangodb.GraphDefinition, error)
				defs    []string
				orphans []string
				exist   []string
				gone    []string
			}{
				{"add a vertex collection", func() (*arangodb.GraphDefinition, error) {
					r, err := g.CreateVertexCollection(ctx, "places", nil)
					return r.GraphDefinition, err
				},
					[]string{def("knows", []string{"people"}, []string{"people"})}, []string{"places"}, []string{"places"}, nil},
				{"add a shared vertex collection", func() (*arangodb.GraphDefinition, error) {
					r, err := g.CreateVertexCollection(ctx, "shared", nil)
					return r.GraphDefinition, err
				},
					[]string{def("knows", []string{"people"}, []string{"people"})}, []string{"places", "shared"}, nil, nil},
				{"add an edge definition over an orphan", func() (*arangodb.GraphDefinition, error) {
					r, err := g.CreateEdgeDefinition(ctx, "visits", []string{"people"}, []string{"places"}, nil)
					return r.GraphDefinition, err
				}, []string{def("knows", []string{"people"}, []string{"people"}), def("visits", []string{"people"}, []string{"places"})},
					[]string{"shared"}, []string{"visits"}, nil},
				{"replace an edge definition", func() (*arangodb.GraphDefinition, error) {
					r, err := g.ReplaceEdgeDefinition(ctx, "visits", []string{"people"}, []string{"cities"}, nil)
					return r.GraphDefinition, err
				}, []string{def("knows", []string{"people"}, []string{"people"}), def("visits", []string{"people"}, []string{"cities"})},
					[]string{"places", "shared"}, []string{"cities", "places"}, nil},
				{"remove an edge definition: its vertex collections become orphans", func() (*arangodb.GraphDefinition, error) {
					r, err := g.DeleteEdgeDefinition(ctx, "visits", nil)
					return r.GraphDefinition, err
				}, []string{def("knows", []string{"people"}, []string{"people"})}, []string{"cities", "places", "shared"}, []string{"visits", "cities"}, nil},
				{"remove a vertex collection, kept", func() (*arangodb.GraphDefinition, error) {
					r, err := g.DeleteVertexCollection(ctx, "cities", nil)
					return r.GraphDefinition, err
				},
					[]string{def("knows", []string{"people"}, []string{"people"})}, []string{"places", "shared"}, []string{"cities"}, nil},
				{"remove a vertex collection, dropped", func() (*arangodb.GraphDefinition, error) {
					r, err := g.DeleteVertexCollection(ctx, "places", &arangodb.DeleteVertexCollectionOptions{DropCollection: &yes})
					return r.GraphDefinition, err
				}, []string{def("knows", []string{"people"}, []string{"people"})}, []string{"shared"}, nil, []string{"places"}},
				{"remove a vertex collection another graph uses, not dropped", func() (*arangodb.GraphDefinition, error) {
					r, err := g.DeleteVertexCollection(ctx, "shared", &arangodb.DeleteVertexCollectionOptions{DropCollection: &yes})
					return r.GraphDefinition, err
				}, []string{def("knows", []string{"people"}, []string{"people"})}, nil, []string{"shared"}, nil},
				{"remove an edge definition, dropped", func() (*arangodb.GraphDefinition, error) {
					r, err := g.DeleteEdgeDefinition(ctx, "knows", &arangodb.DeleteEdgeDefinitionOptions{DropCollection: &yes})
					return r.GraphDefinition, err
				}, nil, []string{"people"}, []string{"people"}, []string{"knows"}},
			}
			for _, st := range steps {
				answered, err := st.do()
				if err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				defs, orphans := graphState(t, db, "social")
				if adefs, aorphans := definitionState(answered); !slices.Equal(adefs, defs) || !slices.Equal(aorphans, orphans) {
					t.Errorf("%s: answered definitions %v orphans %v, stored %v %v", st.name, adefs, aorphans, defs, orphans)
				}
				if !slices.Equal(defs, st.defs) || !slices.Equal(orphans, st.orphans) {
					t.Errorf("%s: definitions %v orphans %v, want %v %v", st.name, defs, orphans, st.defs, st.orphans)
				}
				for _, c := range st.exist {
					if !collectionExists(t, db, c) {
						t.Errorf("%s: collection %s missing", st.name, c)
					}
				}
				for _, c := range st.gone {
					if collectionExists(t, db, c) {
						t.Errorf("%s: collection %s not dropped", st.name, c)
					}
				}
			}
			if p, err := db.GetCollection(ctx, "visits", nil); err != nil {
				t.Error(err)
			} else if props, _ := p.Properties(ctx); props.Type != arangodb.CollectionTypeEdge {
				t.Errorf("visits is type %d", props.Type)
			}
		})
	}
}

// TestGraphEditErrors: ArangoDB's status and errorNum for each refused
// change to a graph's collections, over raw HTTP; a refused change
// leaves the graph as it was.
func TestGraphEditErrors(t *testing.T) {
	url, _ := revServer(t, "http1-basic")
	base := "/_db/g/_api/gharial"
	for _, setup := range []struct {
		path string
		body any
	}{
		{base, map[string]any{"name": "social", "edgeDefinitions": []any{map[string]any{"collection": "knows", "from": []string{"people"}, "to": []string{"people"}}},
			"orphanCollections": []string{"places"}}},
		{base, map[string]any{"name": "work", "edgeDefinitions": []any{map[string]any{"collection": "reports", "from": []string{"staff"}, "to": []string{"staff"}}}}},
	} {
		if code, _, data := raw(t, url, "POST", setup.path, nil, setup.body); code != 202 {
			t.Fatalf("setup: %d %s", code, data)
		}
	}
	for _, c := range []struct {
		name, method, path string
		body               any
		status, num        int
	}{
		{"vertex to an unknown graph", "POST", base + "/nope/vertex", map[string]any{"collection": "x"}, 404, 1924},
		{"edge definition to an unknown graph", "POST", base + "/nope/edge", map[string]any{"collection": "e", "from": []string{"a"}, "to": []string{"b"}}, 404, 1924},
		{"remove a vertex collection of an unknown graph", "DELETE", base + "/nope/vertex/places", nil, 404, 1924},
		{"an orphan twice", "POST", base + "/social/vertex", map[string]any{"collection": "places"}, 400, 1938},
		{"a vertex collection of an edge definition", "POST", base + "/social/vertex", map[string]any{"collection": "people"}, 400, 1929},
		{"remove a vertex collection an edge definition uses", "DELETE", base + "/social/vertex/people", nil, 400, 1928},
		{"remove a vertex collection not in the graph", "DELETE", base + "/social/vertex/staff", nil, 404, 1926},
		{"an edge definition twice", "POST", base + "/social/edge", map[string]any{"collection": "knows", "from": []string{"places"}, "to": []string{"places"}}, 400, 1920},
		{"another graph's edge collection, other vertices", "POST", base + "/social/edge", map[string]any{"collection": "reports", "from": []string{"people"}, "to": []string{"people"}}, 400, 1921},
		{"a malformed edge definition", "POST", base + "/social/edge", map[string]any{"collection": "likes", "from": []string{}, "to": []string{"people"}}, 400, 1923},
		{"a document collection as edges", "POST", base + "/social/edge", map[string]any{"collection": "places", "from": []string{"people"}, "to": []string{"people"}}, 400, 1944},
		{"replace an edge definition not in the graph", "PUT", base + "/social/edge/reports", map[string]any{"collection": "reports", "from": []string{"staff"}, "to": []string{"staff"}}, 404, 1930},
		{"remove an edge definition not in the graph", "DELETE", base + "/social/edge/reports", nil, 404, 1930},
		{"an invalid collection name", "POST", base + "/social/vertex", map[string]any{"collection": "bad/name"}, 400, 1208},
		{"a replace naming another collection", "PUT", base + "/social/edge/knows", map[string]any{"collection": "likes", "from": []string{"people"}, "to": []string{"people"}}, 400, 1923},
	} {
		code, _, data := raw(t, url, c.method, c.path, nil, c.body)
		var e struct {
			Error    bool `json:"error"`
			Code     int  `json:"code"`
			ErrorNum int  `json:"errorNum"`
		}
		_ = json.Unmarshal(data, &e)
		if code != c.status || !e.Error || e.Code != c.status || e.ErrorNum != c.num {
			t.Errorf("%s: %d %s, want %d/%d", c.name, code, data, c.status, c.num)
		}
	}
	_, _, data := raw(t, url, "GET", base+"/social", nil, nil)
	var got struct {
		Graph struct {
			EdgeDefinitions   []map[string]any `json:"edgeDefinitions"`
			OrphanCollections []string         `json:"orphanCollections"`
		} `json:"graph"`
	}
	if err := json.Unmarshal(data, &got); err != nil || len(got.Graph.EdgeDefinitions) != 1 || !slices.Equal(got.Graph.OrphanCollections, []string{"places"}) {
		t.Errorf("after refusals the graph is %s", data)
	}
}

// TestGraphDocumentRevisions: a named graph's vertex and edge endpoints
// honour If-Match through the driver: a stale revision fails with 412 /
// errorNum 1200 and changes nothing; the current one succeeds.
func TestGraphDocumentRevisions(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "h2c-jwt", "g")
	g, err := db.CreateGraph(ctx, "social", &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{
		{Collection: "knows", From: []string{"people"}, To: []string{"people"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vc, err := g.VertexCollection(ctx, "people")
	if err != nil {
		t.Fatal(err)
	}
	ec, err := g.EdgeDefinition(ctx, "knows")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if _, err := vc.CreateVertex(ctx, map[string]any{"_key": k, "n": 1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ec.CreateEdge(ctx, map[string]any{"_key": "ab", "_from": "people/a", "_to": "people/b", "n": 1}, nil); err != nil {
		t.Fatal(err)
	}
	// revs returns a document's revision after one update: stale, current.
	revs := func(update func(string) (string, error), key string) (string, string) {
		t.Helper()
		var d map[string]any
		var err error
		if key == "ab" {
			err = ec.GetEdge(ctx, key, &d, nil)
		} else {
			err = vc.GetVertex(ctx, key, &d, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		cur, err := update(key)
		if err != nil {
			t.Fatal(err)
		}
		return d["_rev"].(string), cur
	}
	touchV := func(k string) (string, error) {
		r, err := vc.UpdateVertex(ctx, k, map[string]any{"n": 2}, nil)
		return r.Rev, err
	}
	touchE := func(k string) (string, error) {
		r, err := ec.UpdateEdge(ctx, k, map[string]any{"n": 2}, nil)
		return r.Rev, err
	}
	type op func(key, rev string) error
	cases := []struct {
		name  string
		key   string
		touch func(string) (string, error)
		do    op
	}{
		{"update vertex", "a", touchV, func(k, rev string) error {
			_, err := vc.UpdateVertex(ctx, k, map[string]any{"n": 3}, &arangodb.VertexUpdateOptions{IfMatch: rev})
			return err
		}},
		{"replace vertex", "a", touchV, func(k, rev string) error {
			_, err := vc.ReplaceVertex(ctx, k, map[string]any{"n": 3}, &arangodb.VertexReplaceOptions{IfMatch: rev})
			return err
		}},
		{"get vertex", "a", touchV, func(k, rev string) error {
			var d map[string]any
			return vc.GetVertex(ctx, k, &d, &arangodb.GetVertexOptions{IfMatch: rev})
		}},
		{"update edge", "ab", touchE, func(k, rev string) error {
			_, err := ec.UpdateEdge(ctx, k, map[string]any{"n": 3}, &arangodb.EdgeUpdateOptions{IfMatch: rev})
			return err
		}},
		{"replace edge", "ab", touchE, func(k, rev string) error {
			_, err := ec.ReplaceEdge(ctx, k, map[string]any{"_from": "people/a", "_to": "people/b", "n": 3}, &arangodb.EdgeReplaceOptions{IfMatch: rev})
			return err
		}},
		{"delete edge", "ab", touchE, func(k, rev string) error {
			_, err := ec.DeleteEdge(ctx, k, &arangodb.DeleteEdgeOptions{IfMatch: rev})
			return err
		}},
		{"delete vertex", "b", touchV, func(k, rev string) error {
			_, err := vc.DeleteVertex(ctx, k, &arangodb.DeleteVertexOptions{IfMatch: rev})
			return err
		}},
	}
	for _, c := range cases {
		stale, cur := revs(c.touch, c.key)
		if err := c.do(c.key, stale); !isConflict(err) {
			t.Errorf("%s with a stale revision: %v", c.name, err)
		}
		var d map[string]any
		var err error
		if c.key == "ab" {
			err = ec.GetEdge(ctx, c.key, &d, nil)
		} else {
			err = vc.GetVertex(ctx, c.key, &d, nil)
		}
		if err != nil || d["_rev"] != cur || d["n"] != float64(2) {
			t.Errorf("%s with a stale revision changed the document: %v %v", c.name, d, err)
		}
		if err := c.do(c.key, cur); err != nil {
			t.Errorf("%s with the current revision: %v", c.name, err)
		}
	}
	if ok, err := vc.DocumentExists(ctx, "b"); ok || err != nil {
		t.Errorf("b after its delete: %v %v", ok, err)
	}
}

// TestGraphVertexDeleteRemovesEdges: deleting a vertex through gharial
// deletes its edges, both ways, in the edge collections of every graph
// that holds its collection, and leaves other edges and edge collections
// outside those graphs alone.
func TestGraphVertexDeleteRemovesEdges(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "http1-basic", "g")
	g, err := db.CreateGraph(ctx, "social", &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{
		{Collection: "knows", From: []string{"people"}, To: []string{"people"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateGraph(ctx, "work", &arangodb.GraphDefinition{EdgeDefinitions: []arangodb.EdgeDefinition{
		{Collection: "manages", From: []string{"people"}, To: []string{"people"}}}}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = db.CreateCollectionV2(ctx, "other", &arangodb.CreateCollectionPropertiesV2{Type: ptr(arangodb.CollectionTypeEdge)})
	if err != nil {
		t.Fatal(err)
	}
	vc, _ := g.VertexCollection(ctx, "people")
	for _, k := range []string{"a", "b", "c"} {
		if _, err := vc.CreateVertex(ctx, map[string]any{"_key": k}, nil); err != nil {
			t.Fatal(err)
		}
	}
	edges := map[string][][3]string{
		"knows":   {{"ab", "a", "b"}, {"ca", "c", "a"}, {"bc", "b", "c"}},
		"manages": {{"ab", "a", "b"}, {"bc", "b", "c"}},
		"other":   {{"ab", "a", "b"}},
	}
	for coll, list := range edges {
		col, err := db.GetCollection(ctx, coll, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			if _, err := col.CreateDocument(ctx, map[string]any{"_key": e[0], "_from": "people/" + e[1], "_to": "people/" + e[2]}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := vc.DeleteVertex(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		coll, key string
		exists    bool
	}{
		{"knows", "ab", false}, {"knows", "ca", false}, {"knows", "bc", true},
		{"manages", "ab", false}, {"manages", "bc", true},
		{"other", "ab", true},
	} {
		col, err := db.GetCollection(ctx, c.coll, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := col.DocumentExists(ctx, c.key); ok != c.exists || err != nil {
			t.Errorf("%s/%s exists %v (%v), want %v", c.coll, c.key, ok, err, c.exists)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestGraphDocumentRevisionHeaders: over raw HTTP, a gharial vertex read
// answers 412 / 1200 to a stale If-Match (or ?rev=), 304 with no body to
// an If-None-Match naming its revision, and 200 otherwise.
func TestGraphDocumentRevisionHeaders(t *testing.T) {
	url, _ := revServer(t, "http1-basic")
	base := "/_db/g/_api/gharial"
	if code, _, data := raw(t, url, "POST", base, nil, map[string]any{"name": "social", "orphanCollections": []string{"people"}}); code != 202 {
		t.Fatalf("create graph: %d %s", code, data)
	}
	code, _, data := raw(t, url, "POST", base+"/social/vertex/people", nil, map[string]any{"_key": "a"})
	var created struct {
		Vertex struct {
			Rev string `json:"_rev"`
		} `json:"vertex"`
	}
	if err := json.Unmarshal(data, &created); code != 202 || err != nil || created.Vertex.Rev == "" {
		t.Fatalf("create vertex: %d %s", code, data)
	}
	rev := created.Vertex.Rev
	for _, c := range []struct {
		name   string
		query  string
		header map[string]string
		status int
		num    int
	}{
		{"no header", "", nil, 200, 0},
		{"current If-Match", "", map[string]string{"If-Match": `"` + rev + `"`}, 200, 0},
		{"stale If-Match", "", map[string]string{"If-Match": `"_stale"`}, 412, 1200},
		{"stale ?rev=", "?rev=_stale", nil, 412, 1200},
		{"If-None-Match the current revision", "", map[string]string{"If-None-Match": `"` + rev + `"`}, 304, 0},
		{"If-None-Match another revision", "", map[string]string{"If-None-Match": `"_other"`}, 200, 0},
	} {
		code, _, data := raw(t, url, "GET", base+"/social/vertex/people/a"+c.query, c.header, nil)
		if code != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, code, data, c.status)
			continue
		}
		switch {
		case c.status == 304 && len(data) != 0:
			t.Errorf("%s: a body %s", c.name, data)
		case c.num != 0:
			var e struct {
				ErrorNum int `json:"errorNum"`
			}
			if json.Unmarshal(data, &e); e.ErrorNum != c.num {
				t.Errorf("%s: %s, want errorNum %d", c.name, data, c.num)
			}
		}
	}
}
