package graphstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// scanKeys returns the keys of a collection as a full scan reads them.
func scanKeys(t *testing.T, s *Store) []string {
	t.Helper()
	var keys []string
	if err := s.Scan("d", "c", func(d Doc) bool { keys = append(keys, d["_key"].(string)); return true }); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestScanInWriteOrder: a full scan reads documents in the order they
// were last written, whatever their keys, through every write path; a
// store made before the order index gets it when it opens.
func TestScanInWriteOrder(t *testing.T) {
	dir := t.TempDir()
	s := openCollectionIn(t, dir)
	line := []byte(`{"_key":"m","n":1}`)
	h, _ := headOf(line)
	steps := []func() error{
		func() error {
			_, err := s.Insert("d", "c", []any{Doc{"_key": "z"}, Doc{"_key": "b"}}, OverwriteConflict, true, true)
			return err
		},
		func() error {
			_, err := s.InsertLines("d", "c", [][]byte{line}, []Head{h}, OverwriteConflict)
			return err
		},
		func() error {
			_, err := s.Insert("d", "c", []any{Doc{"_key": "a"}}, OverwriteConflict, true, true)
			return err
		},
		func() error {
			_, err := s.Modify("d", "c", []any{Doc{"_key": "z", "x": 1}}, false, true, true)
			return err
		},
		func() error { _, err := s.Remove("d", "c", []any{"b"}); return err },
		func() error {
			_, err := s.Insert("d", "c", []any{Doc{"_key": "b"}}, OverwriteConflict, true, true)
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := []string{"m", "a", "z", "b"}
	if got := scanKeys(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("scan order %v, want %v", got, want)
	}
	// A store without the order index (made before it): its records and
	// marker gone, it is rebuilt at open, in key order.
	p := orderPrefix("d", "c")
	if err := s.db.DeleteRange(p, prefixEnd(p), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Delete([]byte(keyOrder), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := scanKeys(t, s2); len(got) != 4 {
		t.Fatalf("after rebuilding the order index: %v", got)
	}
}

func createIndex(t *testing.T, s *Store, def Index) *Index {
	t.Helper()
	ix, created, err := s.CreateIndex("d", "c", def)
	if err != nil || !created {
		t.Fatalf("CreateIndex %+v: %v, created %v", def, err, created)
	}
	return ix
}

// lookup returns the keys an index scan reads.
func lookupKeys(t *testing.T, s *Store, id string, eq []any, lo, hi *Bound) []string {
	t.Helper()
	r, err := s.NewReader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	keys := []string{}
	if err := r.IndexScan("d", "c", id, eq, lo, hi, func(d Doc) bool { keys = append(keys, d["_key"].(string)); return true }); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestPersistentIndex: entries follow every write; lookups by equality,
// range and array element read exactly the matching documents.
func TestPersistentIndex(t *testing.T) {
	s := openCollection(t)
	docs := []any{
		Doc{"_key": "a", "age": json.Number("30"), "city": "Oslo", "tags": []any{"x", "y", "x"}},
		Doc{"_key": "b", "age": json.Number("25"), "city": "Rome", "tags": []any{"y"}},
		Doc{"_key": "c", "age": json.Number("30.0"), "city": "Rome"},
		Doc{"_key": "d", "city": nil},
	}
	if _, err := s.Insert("d", "c", docs[:2], OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	age := createIndex(t, s, Index{Type: "persistent", Fields: []string{"age"}})
	city := createIndex(t, s, Index{Type: "persistent", Fields: []string{"city", "age"}, Sparse: true})
	tags := createIndex(t, s, Index{Type: "persistent", Fields: []string{"tags[*]"}})
	if _, err := s.Insert("d", "c", docs[2:], OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	num := func(f float64) any { return f }
	tests := []struct {
		name   string
		id     string
		eq     []any
		lo, hi *Bound
		want   []string
	}{
		{"equal number", age.ID, []any{num(30)}, nil, nil, []string{"a", "c"}},
		{"missing is null", age.ID, []any{nil}, nil, nil, []string{"d"}},
		{"range", age.ID, nil, &Bound{num(26), true}, &Bound{num(40), false}, []string{"a", "c"}},
		{"range exclusive low", age.ID, nil, &Bound{num(25), false}, nil, []string{"a", "c"}},
		{"range inclusive high", age.ID, nil, &Bound{num(0), true}, &Bound{num(25), true}, []string{"b"}},
		{"sparse leaves null out", city.ID, []any{nil}, nil, nil, []string{}},
		{"two fields", city.ID, []any{"Rome", num(30)}, nil, nil, []string{"c"}},
		{"prefix of fields", city.ID, []any{"Rome"}, nil, nil, []string{"b", "c"}},
		{"array element", tags.ID, []any{"y"}, nil, nil, []string{"a", "b"}},
		{"array element once", tags.ID, []any{"x"}, nil, nil, []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := lookupKeys(t, s, tc.id, tc.eq, tc.lo, tc.hi); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Writes move entries: an update, a removal, a truncate.
	if _, err := s.Modify("d", "c", []any{Doc{"_key": "a", "age": json.Number("31")}}, false, true, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remove("d", "c", []any{"c"}); err != nil {
		t.Fatal(err)
	}
	if got := lookupKeys(t, s, age.ID, []any{num(30)}, nil, nil); len(got) != 0 {
		t.Errorf("after update and removal, age 30: %v", got)
	}
	if got := lookupKeys(t, s, age.ID, []any{num(31)}, nil, nil); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("after update, age 31: %v", got)
	}
	if _, err := s.Truncate("d", "c"); err != nil {
		t.Fatal(err)
	}
	if got := lookupKeys(t, s, tags.ID, []any{"y"}, nil, nil); len(got) != 0 {
		t.Errorf("after truncate: %v", got)
	}
	// The same definition again is the same index; a drop removes it.
	if ix, created, err := s.CreateIndex("d", "c", Index{Type: "hash", Fields: []string{"age"}}); err != nil || created || ix.ID != age.ID {
		t.Errorf("same definition again: %v %v %v", ix, created, err)
	}
	if _, err := s.DropIndex("d", "c", age.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Index("d", "c", age.ID); !errors.Is(err, ErrIndexNotFound) {
		t.Errorf("dropped index still there: %v", err)
	}
}

// TestUniqueIndex: a unique index refuses a second document with its
// values, in one batch and across batches, leaving the store as it was;
// an index that the documents already violate is not made.
func TestUniqueIndex(t *testing.T) {
	s := openCollection(t)
	if _, err := s.Insert("d", "c", []any{Doc{"_key": "a", "mail": "x@y"}, Doc{"_key": "b", "mail": "x@y"}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateIndex("d", "c", Index{Type: "persistent", Fields: []string{"mail"}, Unique: true}); !errors.Is(err, ErrUniqueConstraint) {
		t.Fatalf("unique index over duplicates: %v", err)
	}
	if n := countUnder(t, s, collectionIndexPrefix("d", "c")); n != 0 {
		t.Errorf("a refused index left %d entries", n)
	}
	if _, err := s.Remove("d", "c", []any{"b"}); err != nil {
		t.Fatal(err)
	}
	createIndex(t, s, Index{Type: "persistent", Fields: []string{"mail"}, Unique: true})
	res, err := s.Insert("d", "c", []any{Doc{"_key": "c", "mail": "x@y"}, Doc{"_key": "d", "mail": "p@q"}, Doc{"_key": "e", "mail": "p@q"}}, OverwriteConflict, true, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false, true} {
		if got := errors.Is(res[i].Err, ErrUniqueConstraint); got != want {
			t.Errorf("insert %d: %v", i, res[i].Err)
		}
	}
	if _, err := s.Document("d", "c", "c"); !errors.Is(err, ErrDocumentNotFound) {
		t.Errorf("a refused document was stored: %v", err)
	}
	// A document may keep its own value, and take one another gave up in
	// the same batch.
	res, err = s.Modify("d", "c", []any{Doc{"_key": "a", "n": 1}, Doc{"_key": "d", "mail": "m@n"}}, false, true, true)
	if err != nil || res[0].Err != nil || res[1].Err != nil {
		t.Fatalf("%v %+v", err, res)
	}
	res, err = s.Modify("d", "c", []any{Doc{"_key": "a", "mail": "z@z"}, Doc{"_key": "d", "mail": "x@y"}}, false, true, true)
	if err != nil || res[0].Err != nil || res[1].Err != nil {
		t.Fatalf("swap: %v %+v", err, res)
	}
}

func countUnder(t *testing.T, s *Store, prefix []byte) int {
	t.Helper()
	n := 0
	if err := s.each(prefix, func(_, _ []byte) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIndexDefinitions: bad definitions are refused with the store's
// errors; indexes survive a reopen.
func TestIndexDefinitions(t *testing.T) {
	dir := t.TempDir()
	s := openCollectionIn(t, dir)
	bad := []Index{
		{Type: "geo", Fields: []string{"p"}},
		{Type: "persistent"},
		{Type: "persistent", Fields: []string{"a[*][*]"}},
		{Type: "persistent", Fields: []string{"a..b"}},
		{Type: "ttl", Fields: []string{"a", "b"}},
		{Type: "persistent", Fields: []string{"_id"}},
	}
	for _, def := range bad {
		if _, _, err := s.CreateIndex("d", "c", def); err == nil {
			t.Errorf("%+v was made", def)
		}
	}
	for i := 0; i < MaxIndexes; i++ {
		createIndex(t, s, Index{Type: "persistent", Fields: []string{fmt.Sprint("f", i)}})
	}
	if _, _, err := s.CreateIndex("d", "c", Index{Type: "persistent", Fields: []string{"one-more"}}); !errors.Is(err, ErrTooManyIndexes) {
		t.Errorf("index %d: %v", MaxIndexes+1, err)
	}
	s.Close()
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	list, err := s2.Indexes("d", "c")
	if err != nil || len(list) != MaxIndexes || list[0].Fields[0] != "f0" {
		t.Fatalf("after reopening: %d indexes, %v", len(list), err)
	}
}

// TestIndexKeyOrder: encoded values sort as AQL sorts them.
func TestIndexKeyOrder(t *testing.T) {
	ordered := []any{nil, false, true, -1e9, -1.5, 0.0, json.Number("2"), 10.0, "", "a", "a\x00", "ab", "b",
		[]any{}, []any{1.0}, []any{1.0, 2.0}, []any{2.0}, map[string]any{"a": 1.0}}
	for i := 1; i < len(ordered); i++ {
		a, b := appendValue(nil, ordered[i-1]), appendValue(nil, ordered[i])
		if string(a) >= string(b) {
			t.Errorf("%v does not sort before %v", ordered[i-1], ordered[i])
		}
		if n := skipValue(append(b, 'k')); n != len(b) {
			t.Errorf("skipValue(%v) = %d, want %d", ordered[i], n, len(b))
		}
	}
}

// TestIndexesFollowTheirCollection: a rename takes a collection's indexes
// (definitions and entries) and its write order along; a truncate keeps
// the definitions and empties them; a drop removes both.
func TestIndexesFollowTheirCollection(t *testing.T) {
	s := openCollection(t)
	ix := createIndex(t, s, Index{Type: "persistent", Fields: []string{"a"}})
	if _, err := s.Insert("d", "c", []any{Doc{"_key": "z", "a": "x"}, Doc{"_key": "b", "a": "x"}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rename("d", "c", "renamed"); err != nil {
		t.Fatal(err)
	}
	r, _ := s.NewReader()
	var keys []string
	if err := r.IndexScan("d", "renamed", ix.ID, []any{"x"}, nil, nil, func(d Doc) bool { keys = append(keys, d["_key"].(string)); return true }); err != nil {
		t.Fatal(err)
	}
	var order []string
	if err := r.Scan("d", "renamed", func(d Doc) bool { order = append(order, d["_key"].(string)); return true }); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if !reflect.DeepEqual(keys, []string{"b", "z"}) || !reflect.DeepEqual(order, []string{"z", "b"}) {
		t.Errorf("after rename: index %v, scan %v", keys, order)
	}
	if _, err := s.Truncate("d", "renamed"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.Indexes("d", "renamed"); len(list) != 1 {
		t.Errorf("truncate dropped the index definitions: %v", list)
	}
	if _, err := s.DropCollection("d", "renamed", false); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]byte{collectionIndexPrefix("d", "renamed"), indexDefPrefix("d", "renamed"), orderPrefix("d", "renamed"), indexDefPrefix("d", "c")} {
		if n := countUnder(t, s, p); n != 0 {
			t.Errorf("%d records left under %s", n, p)
		}
	}
}

// TestCollectionBound: a database takes at most MaxCollections
// collections.
func TestCollectionBound(t *testing.T) {
	s := openCollection(t) // d holds c
	for i := 1; i < MaxCollections; i++ {
		if _, err := s.CreateCollection("d", fmt.Sprint("c", i), DocumentCollection, false, false, KeyOptions{}); err != nil {
			t.Fatalf("collection %d: %v", i+1, err)
		}
	}
	if _, err := s.CreateCollection("d", "one-more", DocumentCollection, false, false, KeyOptions{}); !errors.Is(err, ErrTooMany) {
		t.Fatalf("collection %d: %v", MaxCollections+1, err)
	}
}

// TestUniqueIndexConcurrent: writers racing to take one unique value,
// each in its own batch: exactly one wins.
func TestUniqueIndexConcurrent(t *testing.T) {
	s := openCollection(t)
	createIndex(t, s, Index{Type: "persistent", Fields: []string{"v"}, Unique: true})
	const writers = 16
	wins := make(chan bool, writers)
	for i := 0; i < writers; i++ {
		go func(i int) {
			res, err := s.Insert("d", "c", []any{Doc{"_key": fmt.Sprint("k", i), "v": "same"}}, OverwriteConflict, true, true)
			wins <- err == nil && res[0].Err == nil
		}(i)
	}
	won := 0
	for i := 0; i < writers; i++ {
		if <-wins {
			won++
		}
	}
	if n, _ := s.Count("d", "c"); won != 1 || n != 1 {
		t.Errorf("%d writers won, %d documents stored; want 1", won, n)
	}
}
