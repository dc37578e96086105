package graphdb_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/arangodb/go-driver/v2/utils"
	"golang.org/x/text/unicode/norm"
)

// answer is an ArangoDB answer, decoded.
type answer map[string]any

// call makes a raw request and decodes its answer.
func call(t *testing.T, url, method, path string, body any) (int, answer) {
	t.Helper()
	status, _, data := raw(t, url, method, path, nil, body)
	var a answer
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatalf("%s %s: %d %s", method, path, status, data)
	}
	return status, a
}

// TestCollectionOperations: through the driver, on both transports, a
// collection's properties are set and read back, its revision, checksum
// and figures follow its documents, it is renamed with its documents and
// edges (found through the edge index under the new name), recounted,
// compacted, and its indexes "loaded"; shards are a cluster's.
func TestCollectionOperations(t *testing.T) {
	for _, transport := range []string{"http1-basic", "h2c-jwt"} {
		t.Run(transport, func(t *testing.T) {
			ctx := context.Background()
			url := serve(t, t.TempDir())
			db, err := clients(t, url, "root", "secret")[transport].CreateDatabase(ctx, "g", nil)
			if err != nil {
				t.Fatal(err)
			}
			people, err := db.CreateCollectionV2(ctx, "people", nil)
			if err != nil {
				t.Fatal(err)
			}
			knows, err := db.CreateCollectionV2(ctx, "knows", &arangodb.CreateCollectionPropertiesV2{Type: utils.NewType(arangodb.CollectionTypeEdge)})
			if err != nil {
				t.Fatal(err)
			}
			rev0, err := people.Revision(ctx)
			if err != nil || rev0.Revision == "" {
				t.Fatalf("revision: %+v %v", rev0, err)
			}
			for _, k := range []string{"a", "b", "c"} {
				if _, err := people.CreateDocument(ctx, map[string]any{"_key": k, "v": k}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := knows.CreateDocument(ctx, map[string]any{"_key": "e", "_from": "people/a", "_to": "people/b"}); err != nil {
				t.Fatal(err)
			}
			rev1, _ := people.Revision(ctx)
			if rev1.Revision == rev0.Revision {
				t.Error("the revision did not change with writes")
			}
			// Properties.
			if err := people.SetPropertiesV2(ctx, arangodb.SetCollectionPropertiesOptionsV2{WaitForSync: utils.NewType(true),
				CacheEnabled: utils.NewType(true), ReplicationFactor: utils.NewType(arangodb.ReplicationFactor(3)), WriteConcern: utils.NewType(2)}); err != nil {
				t.Fatal(err)
			}
			props, err := people.Properties(ctx)
			if err != nil || !props.WaitForSync || !props.CacheEnabled || props.WriteConcern != 1 {
				t.Errorf("properties after a change: %+v %v", props, err)
			}
			// Checksums: stable; the data checksum follows a change.
			f, tr := false, true
			if c, err := people.Checksum(ctx, &tr, &tr); err != nil || c.Name != "people" || c.Revision == "" || c.GloballyUniqueId == "" {
				t.Errorf("checksum: %+v %v", c, err)
			}
			sum := func(revs, data *bool) string {
				t.Helper()
				s, a := call(t, url, "GET", "/_db/g/_api/collection/people/checksum?withRevisions="+strconv.FormatBool(*revs)+"&withData="+strconv.FormatBool(*data), nil)
				c, _ := a["checksum"].(string)
				if s != 200 || c == "" {
					t.Fatalf("checksum: %d %v", s, a)
				}
				return c
			}
			keys, data := sum(&f, &f), sum(&f, &tr)
			if sum(&f, &f) != keys || sum(&f, &tr) != data || sum(&tr, &tr) != sum(&tr, &tr) {
				t.Error("checksums are not stable")
			}
			if _, err := people.UpdateDocument(ctx, "b", map[string]any{"v": "B"}); err != nil {
				t.Fatal(err)
			}
			if sum(&f, &f) != keys || sum(&f, &tr) == data {
				t.Error("a changed attribute: the key checksum changed, or the data checksum did not")
			}
			// Figures.
			stats, err := people.Statistics(ctx, true)
			if err != nil || stats.Count != 3 || stats.Figures.Indexes.Count != 1 || stats.Name != "people" {
				t.Errorf("figures: %+v %v", stats, err)
			}
			// Rename, with documents and edges.
			info, err := people.Rename(ctx, arangodb.RenameCollectionRequest{Name: "persons"})
			if err != nil || info.Name != "persons" {
				t.Fatalf("rename: %+v %v", info, err)
			}
			if _, err := knows.Rename(ctx, arangodb.RenameCollectionRequest{Name: "relates"}); err != nil {
				t.Fatal(err)
			}
			persons, err := db.GetCollection(ctx, "persons", nil)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if _, err := persons.ReadDocument(ctx, "b", &doc); err != nil || doc["_id"] != "persons/b" || doc["v"] != "B" {
				t.Errorf("a renamed collection's document: %v %v", doc, err)
			}
			if n, err := persons.Count(ctx); n != 3 || err != nil {
				t.Errorf("count after rename: %d %v", n, err)
			}
			if ok, err := db.CollectionExists(ctx, "people"); ok || err != nil {
				t.Errorf("the old name exists: %v %v", ok, err)
			}
			edges, err := db.GetEdges(ctx, "relates", "people/a", &arangodb.GetEdgesOptions{Direction: arangodb.EdgeDirectionOut})
			if err != nil || len(edges) != 1 || edges[0].Key != "e" {
				t.Errorf("edges after rename: %+v %v", edges, err)
			}
			for _, c := range []struct {
				to  string
				num int
			}{{"relates", 1207}, {"bad/name", 1208}, {"_sys", 1208}, {"n\u0303", 1208}} {
				if _, err := persons.Rename(ctx, arangodb.RenameCollectionRequest{Name: c.to}); !shared.IsArangoErrorWithErrorNum(err, c.num) {
					t.Errorf("rename to %q: %v, want %d", c.to, err, c.num)
				}
			}
			// Recount, compact, indexes.
			if ok, n, err := persons.RecalculateCount(ctx); !ok || n == nil || *n != 3 || err != nil {
				t.Errorf("recalculateCount: %v %v %v", ok, n, err)
			}
			if c, err := persons.Compact(ctx); err != nil || c.Name != "persons" {
				t.Errorf("compact: %+v %v", c, err)
			}
			if ok, err := persons.LoadIndexesIntoMemory(ctx); !ok || err != nil {
				t.Errorf("loadIndexesIntoMemory: %v %v", ok, err)
			}
			if _, err := persons.Shards(ctx, false); !shared.IsArangoErrorWithErrorNum(err, 1471) {
				t.Errorf("shards on a single server: %v", err)
			}
		})
	}
}

// TestCollectionPropertiesErrors: ArangoDB's refusals of a properties
// change: a bad schema, computed values that are not an array, and a
// body over the endpoint's limit (a hostile tenant's).
func TestCollectionPropertiesErrors(t *testing.T) {
	url := serve(t, t.TempDir())
	if s, a := call(t, url, "POST", "/_api/collection", map[string]any{"name": "c"}); s != 200 {
		t.Fatalf("create: %d %v", s, a)
	}
	for _, c := range []struct {
		name   string
		body   any
		status int
		num    float64
	}{
		{"schema a string", map[string]any{"schema": "x"}, 400, 1621},
		{"a huge schema", map[string]any{"schema": map[string]any{"x": strings.Repeat("y", 300<<10)}}, 400, 1621},
		{"computed values an object", map[string]any{"computedValues": map[string]any{}}, 400, 10},
		{"huge body", map[string]any{"schema": map[string]any{"x": strings.Repeat("y", 2<<20)}}, 413, 400},
		{"missing collection", nil, 404, 1203},
	} {
		path := "/_api/collection/c/properties"
		if c.body == nil {
			path = "/_api/collection/nope/properties"
		}
		s, a := call(t, url, "PUT", path, c.body)
		if s != c.status || a["errorNum"] != c.num {
			t.Errorf("%s: %d %v, want %d %v", c.name, s, a, c.status, c.num)
		}
	}
	// A schema set is read back; null removes it.
	if s, a := call(t, url, "PUT", "/_api/collection/c/properties", map[string]any{"schema": map[string]any{"rule": map[string]any{"type": "object"}, "level": "moderate"}}); s != 200 || a["schema"] == nil {
		t.Errorf("a schema: %d %v", s, a)
	}
	if s, a := call(t, url, "PUT", "/_api/collection/c/properties", map[string]any{"schema": nil}); s != 200 || a["schema"] != nil {
		t.Errorf("a schema removed: %d %v", s, a)
	}
}

// TestUnicodeNames: database and collection names may be Unicode; a name
// not NFC-normalized is refused with ArangoDB's message.
func TestUnicodeNames(t *testing.T) {
	ctx := context.Background()
	c := clients(t, serve(t, t.TempDir()), "root", "secret")["http1-basic"]
	bad := "\u006E\u0303\u00f1-db"
	if _, err := c.CreateDatabase(ctx, bad, nil); err == nil || err.Error() != "database name is not properly UTF-8 NFC-normalized" {
		t.Errorf("a database name not NFC: %v", err)
	}
	db, err := c.CreateDatabase(ctx, norm.NFC.String(bad), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetDatabase(ctx, bad, nil); err == nil {
		t.Error("the database is found by its name not NFC")
	}
	if _, err := db.CreateCollectionV2(ctx, "n\u0303", nil); !shared.IsArangoErrorWithErrorNum(err, 1208) || !strings.Contains(err.Error(), "NFC") {
		t.Errorf("a collection name not NFC: %v", err)
	}
	col, err := db.CreateCollectionV2(ctx, "ñandú 日本", nil)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := col.CreateDocument(ctx, map[string]any{"_key": "k"})
	if err != nil || string(meta.ID) != "ñandú 日本/k" {
		t.Errorf("a document of a unicode collection: %+v %v", meta, err)
	}
	if _, err := c.CreateDatabase(ctx, "a:b", nil); !shared.IsArangoErrorWithErrorNum(err, 1229) {
		t.Errorf("a database name with ':': %v", err)
	}
}

// TestComputedValues: computed values set at creation and by a
// properties change are computed on the writes they name, see the
// document as @doc, follow overwrite and keepNull, and are refused when
// their expression is not one RETURN of an expression.
func TestComputedValues(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, "http1-basic", "g")
	no, yes := false, true
	col, err := db.CreateCollectionV2(ctx, "people", &arangodb.CreateCollectionPropertiesV2{ComputedValues: &[]arangodb.ComputedValue{
		{Name: "full", Expression: "RETURN CONCAT(@doc.first, ' ', @doc.last)", Overwrite: true},
		{Name: "createdAt", Expression: "RETURN DATE_NOW()", Overwrite: true, ComputeOn: []arangodb.ComputeOn{arangodb.ComputeOnInsert}},
		{Name: "tag", Expression: "RETURN 'computed'", Overwrite: false},
		{Name: "gone", Expression: "RETURN null", Overwrite: true, KeepNull: &no},
		{Name: "kept", Expression: "RETURN null", Overwrite: true, KeepNull: &yes},
	}})
	if err != nil {
		t.Fatal(err)
	}
	props, err := col.Properties(ctx)
	if err != nil || len(props.ComputedValues) != 5 || len(props.ComputedValues[0].ComputeOn) != 3 || *props.ComputedValues[3].KeepNull {
		t.Fatalf("computed values as read back: %+v %v", props.ComputedValues, err)
	}
	read := func(key string) map[string]any {
		t.Helper()
		var d map[string]any
		if _, err := col.ReadDocument(ctx, key, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	start := float64(time.Now().UnixMilli())
	if _, err := col.CreateDocument(ctx, map[string]any{"_key": "a", "first": "Ada", "last": "Lovelace", "tag": "mine", "gone": 1}); err != nil {
		t.Fatal(err)
	}
	d := read("a")
	if d["full"] != "Ada Lovelace" || d["tag"] != "mine" || d["gone"] != nil || d["kept"] != nil {
		t.Errorf("computed on insert: %v", d)
	}
	if _, ok := d["kept"]; !ok {
		t.Error("keepNull: null not kept")
	}
	created, _ := d["createdAt"].(float64)
	if created < start || created > float64(time.Now().UnixMilli()) {
		t.Errorf("DATE_NOW(): %v", d["createdAt"])
	}
	if _, err := col.UpdateDocument(ctx, "a", map[string]any{"first": "Augusta"}); err != nil {
		t.Fatal(err)
	}
	if d := read("a"); d["full"] != "Augusta Lovelace" || d["createdAt"] != created {
		t.Errorf("computed on update (createdAt only on insert): %v", d)
	}
	// A properties change: the values are removed.
	if err := col.SetPropertiesV2(ctx, arangodb.SetCollectionPropertiesOptionsV2{ComputedValues: &[]arangodb.ComputedValue{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := col.CreateDocument(ctx, map[string]any{"_key": "b", "first": "x"}); err != nil {
		t.Fatal(err)
	}
	if d := read("b"); d["full"] != nil || d["tag"] != nil {
		t.Errorf("computed after removal: %v", d)
	}
	url := serve(t, t.TempDir())
	call(t, url, "POST", "/_api/collection", map[string]any{"name": "c"})
	cv := func(expr string) map[string]any {
		return map[string]any{"computedValues": []any{map[string]any{"name": "x", "expression": expr, "overwrite": true}}}
	}
	for _, c := range []struct {
		name string
		body any
	}{
		{"no RETURN", cv("1 + 1")},
		{"a syntax error", cv("RETURN (")},
		{"a subquery", cv("RETURN (FOR d IN c RETURN d)")},
		{"a LET", cv("LET x = 1 RETURN x")},
		{"another bind parameter", cv("RETURN @other")},
		{"a collection bind parameter", cv("RETURN @@c")},
		{"DOCUMENT()", cv("RETURN DOCUMENT('c/1')")},
		{"a system attribute", map[string]any{"computedValues": []any{map[string]any{"name": "_key", "expression": "RETURN 1", "overwrite": true}}}},
		{"no overwrite", map[string]any{"computedValues": []any{map[string]any{"name": "x", "expression": "RETURN 1"}}}},
		{"a bad computeOn", map[string]any{"computedValues": []any{map[string]any{"name": "x", "expression": "RETURN 1", "overwrite": true, "computeOn": []any{"delete"}}}}},
		{"a duplicate name", map[string]any{"computedValues": []any{
			map[string]any{"name": "x", "expression": "RETURN 1", "overwrite": true}, map[string]any{"name": "x", "expression": "RETURN 2", "overwrite": true}}}},
		{"a huge expression", cv("RETURN " + strings.Repeat("1 + ", 20000) + "1")},
		{"too many", map[string]any{"computedValues": func() []any {
			var l []any
			for i := 0; i < 100; i++ {
				l = append(l, map[string]any{"name": "x" + strings.Repeat("i", i), "expression": "RETURN 1", "overwrite": true})
			}
			return l
		}()}},
	} {
		if s, a := call(t, url, "PUT", "/_api/collection/c/properties", c.body); s != 400 || a["errorNum"] != float64(10) {
			t.Errorf("%s: %d %v", c.name, s, a)
		}
	}
	if s, a := call(t, url, "GET", "/_api/collection/c/properties", nil); s != 200 || a["computedValues"] != nil {
		t.Errorf("a refused change was kept: %v", a)
	}
}

// TestHostileComputedValue: an expression that would make a huge value
// or run long fails the write at its fence, quickly; the collection
// takes other writes.
func TestHostileComputedValue(t *testing.T) {
	url := serve(t, t.TempDir())
	call(t, url, "POST", "/_api/collection", map[string]any{"name": "c"})
	for _, expr := range []string{
		"RETURN LENGTH(1..100000000)",
		"RETURN LENGTH(CONCAT_SEPARATOR(',', 1..10000000))",
	} {
		if s, a := call(t, url, "PUT", "/_api/collection/c/properties", map[string]any{"computedValues": []any{
			map[string]any{"name": "x", "expression": expr, "overwrite": true}}}); s != 200 {
			t.Fatalf("%s: %d %v", expr, s, a)
		}
		start := time.Now()
		s, a := call(t, url, "POST", "/_api/document/c", map[string]any{"v": 1})
		t.Logf("%s: %d %v in %v", expr, s, a, time.Since(start))
		if s < 400 || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %d %v in %v", expr, s, a, time.Since(start))
		}
	}
	call(t, url, "PUT", "/_api/collection/c/properties", map[string]any{"computedValues": nil})
	if s, a := call(t, url, "POST", "/_api/document/c", map[string]any{"v": 1}); s != 202 {
		t.Errorf("a write after the computed values were removed: %d %v", s, a)
	}
}
