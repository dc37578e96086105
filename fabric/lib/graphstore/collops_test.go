package graphstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// openStore opens a store on a temporary directory with database "g".
func openStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.CreateDatabase("g"); err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// mustCollection creates a collection of type typ.
func mustCollection(t *testing.T, s *Store, db, name string, typ int) {
	t.Helper()
	if _, err := s.CreateCollection(db, name, typ, false, false, KeyOptions{AllowUserKeys: true}); err != nil {
		t.Fatal(err)
	}
}

// keysWith returns the store's keys that contain part, whatever their
// prefix: what a collection left behind.
func keysWith(t *testing.T, s *Store, part string) []string {
	t.Helper()
	it, err := s.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for it.First(); it.Valid(); it.Next() {
		if strings.Contains(string(it.Key()), part) {
			out = append(out, string(it.Key()))
		}
	}
	return out
}

// TestRename: a renamed collection keeps its documents (their _id names
// the new name), its edges (found through the edge index under the new
// name), its count and its id, across a reopening; the old name is free
// and holds nothing; ArangoDB's refusals for a duplicate, an illegal or
// non-NFC name and a system collection leave the collection as it was.
func TestRename(t *testing.T) {
	s, dir := openStore(t)
	mustCollection(t, s, "g", "people", DocumentCollection)
	mustCollection(t, s, "g", "knows", EdgeCollection)
	mustCollection(t, s, "g", "other", DocumentCollection)
	if _, err := s.Insert("g", "people", []any{map[string]any{"_key": "a", "n": 1}, map[string]any{"_key": "b"}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert("g", "knows", []any{map[string]any{"_key": "e1", "_from": "people/a", "_to": "people/b"}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Collection("g", "knows")
	for _, c := range []struct {
		name, from, to string
		want           error
	}{
		{"duplicate", "people", "other", ErrDuplicateName},
		{"illegal", "people", "has/slash", ErrCollectionName},
		{"system name", "people", "_sys", ErrCollectionName},
		{"not NFC", "people", "n\u0303", ErrCollectionNameNFC},
		{"missing", "nope", "x", ErrCollectionNotFound},
		{"document collection", "people", "persons", nil},
		{"edge collection", "knows", "relates", nil},
		{"unicode name", "other", "ñandú", nil},
	} {
		if _, err := s.Rename("g", c.from, c.to); !errors.Is(err, c.want) {
			t.Errorf("%s: rename %s to %s: %v, want %v", c.name, c.from, c.to, err, c.want)
		}
	}
	if _, err := s.CreateCollection("g", "_sys", DocumentCollection, true, false, KeyOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rename("g", "_sys", "plain"); !errors.Is(err, ErrSystemCollection) {
		t.Errorf("a system collection renamed: %v", err)
	}
	check := func(s *Store) {
		t.Helper()
		for _, old := range []string{"people", "knows", "other"} {
			if _, err := s.Collection("g", old); !errors.Is(err, ErrCollectionNotFound) {
				t.Errorf("old name %s: %v", old, err)
			}
			if left := keysWith(t, s, "/g/"+old); len(left) > 0 {
				t.Errorf("records left under %s: %q", old, left)
			}
		}
		doc, err := s.Document("g", "persons", "a")
		if err != nil || !strings.Contains(string(doc), `"_id":"persons/a"`) {
			t.Errorf("renamed document: %s %v", doc, err)
		}
		if n, err := s.Count("g", "persons"); n != 2 || err != nil {
			t.Errorf("count after rename %d %v", n, err)
		}
		if got, err := s.Edges("g", "relates", "people/a", Outbound); err != nil || !slices.Equal(got, []string{"e1"}) {
			t.Errorf("edges after rename: %v %v", got, err)
		}
		if got, err := s.Edges("g", "relates", "people/b", Inbound); err != nil || !slices.Equal(got, []string{"e1"}) {
			t.Errorf("inbound edges after rename: %v %v", got, err)
		}
		if after, err := s.Collection("g", "relates"); err != nil || after.ID != before.ID || after.Type != EdgeCollection {
			t.Errorf("renamed edge collection %+v %v, want id %s", after, err, before.ID)
		}
	}
	check(s)
	// Writes go to the new name, and the key filter followed it.
	if res, err := s.Insert("g", "persons", []any{map[string]any{"_key": "a"}}, OverwriteConflict, true, true); err != nil || !errors.Is(res[0].Err, ErrUniqueConstraint) {
		t.Errorf("insert of an existing key after rename: %+v %v", res, err)
	}
	s.Close()
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	check(s2)
	// The old name takes a new, empty collection.
	mustCollection(t, s2, "g", "people", DocumentCollection)
	if n, _ := s2.Count("g", "people"); n != 0 {
		t.Errorf("a new collection under the old name counts %d", n)
	}
}

// TestRenameWholeDocuments: documents stored whole (with their _id, as
// before the compact form) read with the new name after a rename.
func TestRenameWholeDocuments(t *testing.T) {
	s, _ := openStore(t)
	mustCollection(t, s, "g", "old", DocumentCollection)
	if err := s.db.Set(docKey("g", "old", "k"), []byte(`{"_key":"k","_id":"old/k","_rev":"_x","v":1}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rename("g", "old", "new"); err != nil {
		t.Fatal(err)
	}
	doc, err := s.Document("g", "new", "k")
	if err != nil || !strings.Contains(string(doc), `"_id":"new/k"`) || !strings.Contains(string(doc), `"v":1`) {
		t.Errorf("whole document after rename: %s %v", doc, err)
	}
}

// TestHostileRenameTooLarge: a rename of a collection larger than
// RenameLimit is refused before anything is written; the collection
// stays whole under its name.
func TestHostileRenameTooLarge(t *testing.T) {
	s, _ := openStore(t)
	defer func(n int) { RenameLimit = n }(RenameLimit)
	RenameLimit = 64 << 10
	mustCollection(t, s, "g", "big", DocumentCollection)
	if _, err := s.Insert("g", "big", docs("d", 200, 1024), OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rename("g", "big", "bigger"); !errors.Is(err, ErrRenameTooLarge) {
		t.Fatalf("a rename past the limit: %v", err)
	}
	if n, err := s.Count("g", "big"); n != 200 || err != nil {
		t.Errorf("after a refused rename: %d %v", n, err)
	}
	if _, err := s.Collection("g", "bigger"); !errors.Is(err, ErrCollectionNotFound) {
		t.Errorf("the new name exists after a refused rename: %v", err)
	}
	if left := keysWith(t, s, "/g/bigger"); len(left) > 0 {
		t.Errorf("a refused rename wrote %d records", len(left))
	}
	if _, err := s.Insert("g", "big", []any{map[string]any{"_key": "more"}}, OverwriteConflict, true, true); err != nil {
		t.Errorf("a write after a refused rename: %v", err)
	}
}

// TestDropLeavesNothing: dropping a collection, truncating it, and
// dropping its database delete every record it keeps
// (collectionPrefixes, collectionKeys).
func TestDropLeavesNothing(t *testing.T) {
	s, _ := openStore(t)
	fill := func(coll string) {
		mustCollection(t, s, "g", coll, EdgeCollection)
		if _, err := s.Insert("g", coll, []any{map[string]any{"_key": "e", "_from": "v/a", "_to": "v/b"}}, OverwriteConflict, true, true); err != nil {
			t.Fatal(err)
		}
		s.Count("g", coll) // folds the count deltas into n/g/coll
		if _, err := s.Insert("g", coll, []any{map[string]any{"_key": "f", "_from": "v/a", "_to": "v/b"}}, OverwriteConflict, true, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		drop func(coll string) error
		left string // what may stay
	}{
		{"drop collection", func(coll string) error { _, err := s.DropCollection("g", coll, false); return err }, ""},
		{"truncate", func(coll string) error { _, err := s.Truncate("g", coll); return err }, "c/g/"},
		{"drop database", func(string) error { return s.DropDatabase("g") }, ""},
	} {
		if c.name == "drop database" {
			if _, err := s.CreateDatabase("g"); err != nil && !errors.Is(err, ErrDuplicateName) {
				t.Fatal(err)
			}
		}
		coll := "e" + strings.ReplaceAll(c.name, " ", "")
		fill(coll)
		if err := c.drop(coll); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, k := range keysWith(t, s, "/g/"+coll) {
			if c.left == "" || !strings.HasPrefix(k, c.left) {
				t.Errorf("%s left %q", c.name, k)
			}
		}
	}
}

// TestChecksum: the same documents give the same checksum in any order of
// insertion, with data; a change of an attribute changes the data
// checksum only; a new document changes every one; the revision changes
// with each write.
func TestChecksum(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	mustCollection(t, s, "g", "a", DocumentCollection)
	mustCollection(t, s, "g", "b", DocumentCollection)
	d := func(k string, v int) any {
		return map[string]any{"_key": k, "v": v, "o": map[string]any{"y": 1, "x": 2}}
	}
	if _, err := s.Insert("g", "a", []any{d("1", 1), d("2", 2), d("3", 3)}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	for _, x := range []any{d("3", 3), d("1", 1), d("2", 2)} {
		if _, err := s.Insert("g", "b", []any{x}, OverwriteConflict, true, true); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(coll string, revs, data bool) uint64 {
		t.Helper()
		n, _, err := s.Checksum(ctx, "g", coll, revs, data)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		revs, data bool
		same       bool
	}{{false, false, true}, {false, true, true}, {true, false, false}, {true, true, false}} {
		if got := sum("a", c.revs, c.data) == sum("b", c.revs, c.data); got != c.same {
			t.Errorf("withRevisions=%v withData=%v: same content gives the same checksum: %v, want %v", c.revs, c.data, got, c.same)
		}
		if sum("a", c.revs, c.data) != sum("a", c.revs, c.data) {
			t.Errorf("withRevisions=%v withData=%v: not stable", c.revs, c.data)
		}
	}
	keys, data := sum("b", false, false), sum("b", false, true)
	rev0, _ := s.Revision("g", "b")
	if _, err := s.Modify("g", "b", []any{map[string]any{"_key": "2", "v": 20}}, false, true, true); err != nil {
		t.Fatal(err)
	}
	if sum("b", false, false) != keys || sum("b", false, true) == data {
		t.Errorf("a changed attribute: keys checksum kept %v, data checksum changed %v", sum("b", false, false) == keys, sum("b", false, true) != data)
	}
	rev1, _ := s.Revision("g", "b")
	if _, err := s.Insert("g", "b", []any{d("4", 4)}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	if sum("b", false, false) == keys {
		t.Error("a new document did not change the checksum")
	}
	rev2, _ := s.Revision("g", "b")
	if rev0 == rev1 || rev1 == rev2 || rev0 == "" {
		t.Errorf("revisions %q %q %q", rev0, rev1, rev2)
	}
	if empty, _ := s.Revision("g", "a"); empty == "" {
		t.Error("no revision")
	}
	ctxDone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Insert("g", "a", docs("m", 2000, 8), OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Checksum(ctxDone, "g", "a", false, false); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled checksum: %v", err)
	}
}

// TestPropertiesAndCount: properties set are kept across a reopening, a
// writer's info is not changed under it, and recalculateCount counts the
// documents again.
func TestPropertiesAndCount(t *testing.T) {
	s, dir := openStore(t)
	mustCollection(t, s, "g", "c", DocumentCollection)
	old, _ := s.Collection("g", "c")
	cv := ComputedValue{Name: "x", Expression: "RETURN 1", ComputeOn: []string{"insert"}, Overwrite: true, KeepNull: true}
	if _, err := s.SetProperties("g", "c", func(w *bool, p *Properties) error {
		*w, p.CacheEnabled, p.Schema, p.ComputedValues = true, true, []byte(`{"rule":{}}`), []ComputedValue{cv}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetProperties("g", "c", func(*bool, *Properties) error { return errors.New("refused") }); err == nil {
		t.Error("a refused change was kept")
	}
	if old.WaitForSync || old.CacheEnabled {
		t.Error("a published CollectionInfo changed")
	}
	if _, err := s.Insert("g", "c", docs("d", 5, 8), OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	if n, err := s.RecalculateCount("g", "c"); n != 5 || err != nil {
		t.Errorf("recalculated count %d %v", n, err)
	}
	if err := s.Compact(context.Background(), "g", "c"); err != nil {
		t.Errorf("compact: %v", err)
	}
	if f, err := s.CollectionFigures("g", "c"); err != nil || f.Count != 5 || f.Indexes != 1 {
		t.Errorf("figures %+v %v", f, err)
	}
	s.Close()
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	c, err := s2.Collection("g", "c")
	if err != nil || !c.WaitForSync || !c.CacheEnabled || string(c.Schema) != `{"rule":{}}` || len(c.ComputedValues) != 1 || c.ComputedValues[0].Name != "x" {
		t.Errorf("properties after reopening: %+v %v", c, err)
	}
	if n, _ := s2.Count("g", "c"); n != 5 {
		t.Errorf("count after reopening %d", n)
	}
}

// TestComputer: the computer is called with each document a write
// stores, with the kind of write, on every path (a user key, a generated
// one, a line, a replace, an update, an insert that overwrites), and its
// error fails that document only.
func TestComputer(t *testing.T) {
	s, _ := openStore(t)
	s.SetComputer(func(info *CollectionInfo, op ComputeOp, doc Doc) error {
		if doc["fail"] != nil {
			return errors.New("computed value failed")
		}
		doc["op"] = string(op)
		return nil
	})
	mustCollection(t, s, "g", "plain", DocumentCollection)
	if _, err := s.CreateCollectionWith("g", "c", DocumentCollection, false, false, KeyOptions{AllowUserKeys: true},
		Properties{ComputedValues: []ComputedValue{{Name: "op", Expression: "RETURN 1"}}}); err != nil {
		t.Fatal(err)
	}
	op := func(coll, key string) string {
		t.Helper()
		doc, err := s.Document("g", coll, key)
		if err != nil {
			return err.Error()
		}
		d, _ := DecodeDoc(doc)
		v, _ := d["op"].(string)
		return v
	}
	res, err := s.Insert("g", "c", []any{map[string]any{"_key": "a"}, map[string]any{"fail": true}, map[string]any{"_key": "f", "fail": 1}}, OverwriteConflict, true, true)
	if err != nil || res[0].Err != nil || res[1].Err == nil || res[2].Err == nil {
		t.Fatalf("insert: %+v %v", res, err)
	}
	gen, err := s.Insert("g", "c", []any{map[string]any{"v": 1}}, OverwriteConflict, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.InsertLines("g", "c", [][]byte{[]byte(`{"_key":"l"}`)}, []Head{{Values: []any{"l", nil, nil, nil, nil}, Present: []bool{true, false, false, false, false}}}, OverwriteConflict); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ key, want string }{{"a", "insert"}, {gen[0].Key, "insert"}, {"l", "insert"}} {
		if got := op("c", c.key); got != c.want {
			t.Errorf("%s: op %q, want %q", c.key, got, c.want)
		}
	}
	if _, err := s.Modify("g", "c", []any{map[string]any{"_key": "a"}}, true, true, true); err != nil || op("c", "a") != "replace" {
		t.Errorf("replace: %q %v", op("c", "a"), err)
	}
	if _, err := s.Modify("g", "c", []any{map[string]any{"_key": "a", "w": 1}}, false, true, true); err != nil || op("c", "a") != "update" {
		t.Errorf("update: %q %v", op("c", "a"), err)
	}
	if _, err := s.Insert("g", "c", []any{map[string]any{"_key": "a"}}, OverwriteReplace, true, true); err != nil || op("c", "a") != "replace" {
		t.Errorf("insert overwriting: %q %v", op("c", "a"), err)
	}
	if _, err := s.Insert("g", "plain", []any{map[string]any{"_key": "p"}}, OverwriteConflict, true, true); err != nil || op("plain", "p") != "" {
		t.Errorf("a collection without computed values: %q %v", op("plain", "p"), err)
	}
}

// TestNames: database and collection names follow ArangoDB's extended
// naming convention.
func TestNames(t *testing.T) {
	long := func(n int) string { return "a" + strings.Repeat("b", n-1) }
	for _, c := range []struct {
		name     string
		db, coll error
	}{
		{"plain", nil, nil},
		{"with-dash_and_1", nil, nil},
		{"ñandú", nil, nil},
		{"日本語", nil, nil},
		{"inner space", nil, nil},
		{"n\u0303", ErrDatabaseNameNFC, ErrCollectionNameNFC},
		{"", ErrDatabaseName, ErrCollectionName},
		{"1digit", ErrDatabaseName, ErrCollectionName},
		{" lead", ErrDatabaseName, ErrCollectionName},
		{"trail ", ErrDatabaseName, ErrCollectionName},
		{"a/b", ErrDatabaseName, ErrCollectionName},
		{"a:b", ErrDatabaseName, nil},
		{"a\x00b", ErrDatabaseName, ErrCollectionName},
		{"a\x7fb", ErrDatabaseName, ErrCollectionName},
		{"bad\xffutf8", ErrDatabaseName, ErrCollectionName},
		{"_system2", ErrDatabaseName, ErrCollectionName}, // a collection's only with isSystem
		{long(MaxDatabaseName), nil, nil},
		{long(MaxDatabaseName + 1), ErrDatabaseName, nil},
		{long(MaxCollectionName + 1), ErrDatabaseName, ErrCollectionName},
	} {
		if err := checkDatabaseName(c.name); !errors.Is(err, c.db) {
			t.Errorf("database name %q: %v, want %v", c.name, err, c.db)
		}
		if err := checkCollectionName(c.name, false); !errors.Is(err, c.coll) {
			t.Errorf("collection name %q: %v, want %v", c.name, err, c.coll)
		}
	}
	s, _ := openStore(t)
	if _, err := s.CreateDatabase("n\u0303"); !errors.Is(err, ErrDatabaseNameNFC) {
		t.Errorf("a database name not NFC: %v", err)
	}
	if _, err := s.CreateDatabase("ñ"); err != nil {
		t.Errorf("a database name NFC: %v", err)
	}
	if _, err := s.CreateCollection("ñ", "ñandú", DocumentCollection, false, false, KeyOptions{AllowUserKeys: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert("ñ", "ñandú", []any{map[string]any{"_key": "k"}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	if doc, err := s.Document("ñ", "ñandú", "k"); err != nil || !strings.Contains(string(doc), fmt.Sprintf("%q", "ñandú/k")) {
		t.Errorf("a document of a unicode collection: %s %v", doc, err)
	}
}

// TestRenameWhileWriting: properties changed and a rename made while
// batches are written: no batch is lost or written under the old name
// (a batch that raced the rename fails as not found), and the count
// under the new name is every document written.
func TestRenameWhileWriting(t *testing.T) {
	s, _ := openStore(t)
	mustCollection(t, s, "g", "c", DocumentCollection)
	var wg sync.WaitGroup
	var written atomic.Int64
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				res, err := s.Insert("g", "c", docs(fmt.Sprintf("w%d-%d-", w, i), 10, 16), OverwriteConflict, true, true)
				if errors.Is(err, ErrCollectionNotFound) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				for _, r := range res {
					if r.Err == nil {
						written.Add(1)
					}
				}
			}
		}(w)
	}
	// Until the writers have written (they may be slow to start on a busy
	// machine), then while they write: no sleeps that guess.
	waitFor := func(what string, n int64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); written.Load() <= n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no document written %s in 30 s", what)
			}
		}
	}
	waitFor("before the property changes", 0)
	before := written.Load()
	for i := 0; i < 20; i++ {
		if _, err := s.SetProperties("g", "c", func(w *bool, p *Properties) error { *w = i%2 == 0; return nil }); err != nil {
			t.Fatal(err)
		}
		if i == 10 {
			waitFor("while properties changed", before)
		}
	}
	if _, err := s.Rename("g", "c", "d"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	t.Logf("%d documents written before the rename", written.Load())
	if n, err := s.Count("g", "d"); n != written.Load() || err != nil {
		t.Errorf("count after rename %d %v, %d written", n, err, written.Load())
	}
	if n, err := s.RecalculateCount("g", "d"); n != written.Load() || err != nil {
		t.Errorf("recounted %d %v, %d written", n, err, written.Load())
	}
	if left := keysWith(t, s, "/g/c/"); len(left) > 0 {
		t.Errorf("%d records written under the old name", len(left))
	}
}
