package graphstore

import (
	"testing"

	"github.com/fabricops/fabric/fabric/lib/docjson"
)

// TestInsertLines: documents given as JSON text are stored as their text
// when their key is new, and go the decoded way otherwise (a key repeated
// in the batch, one that exists, a line naming _id); each reads back as
// Insert would have stored it.
func TestInsertLines(t *testing.T) {
	s := openCollection(t)
	insert := func(mode OverwriteMode, texts ...string) []Result {
		t.Helper()
		var lines [][]byte
		var heads []Head
		for _, x := range texts {
			vals, present, err := docjson.Fields([]byte(x), HeadNames)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, []byte(x))
			heads = append(heads, Head{Values: vals, Present: present})
		}
		res, err := s.InsertLines("d", "c", lines, heads, mode)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := insert(OverwriteUpdate, `{"_key":"a","n":1,"m":{"x":1}}`, `{"_key":"a","m":{"y":2}}`, `{"_key":"b","_id":"c/zz","n":2}`, `{"_key":"bad key"}`)
	if res[0].Err != nil || res[1].Err != nil || res[1].OldRev != res[0].Rev || res[2].Err != nil || res[3].Err != ErrIllegalKey {
		t.Fatalf("results: %+v", res)
	}
	res = insert(OverwriteIgnore, `{"_key":"b","n":3}`, `{"_key":"c","n":4}`)
	if !res[0].Ignored || res[1].Ignored || res[1].Err != nil {
		t.Fatalf("ignore: %+v", res)
	}
	want := map[string]string{
		"a": `{"_id":"c/a","_key":"a","_rev":"` + res0rev(t, s, "a") + `","m":{"x":1,"y":2},"n":1}`,
		"b": `{"_id":"c/b","_key":"b","_rev":"` + res0rev(t, s, "b") + `","n":2}`,
		"c": `{"_id":"c/c","_key":"c","_rev":"` + res0rev(t, s, "c") + `","n":4}`,
	}
	for k, w := range want {
		data, err := s.Document("d", "c", k)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := DecodeDoc(data)
		got, _ := docjson.Encode(d)
		if string(got) != w {
			t.Errorf("%s: %s, want %s", k, got, w)
		}
	}
	if n, _ := s.Count("d", "c"); n != 3 {
		t.Errorf("count %d, want 3", n)
	}
}

// res0rev returns a stored document's revision.
func res0rev(t *testing.T, s *Store, key string) string {
	t.Helper()
	data, err := s.Document("d", "c", key)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := DecodeDoc(data)
	rev, _ := d["_rev"].(string)
	return rev
}

// openCollection opens a store in a temporary directory with the
// document collection c of the database d.
func openCollection(t *testing.T) *Store {
	t.Helper()
	return openCollectionIn(t, t.TempDir())
}

// openCollectionIn opens a store in dir with database d and collection c.
func openCollectionIn(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.CreateDatabase("d"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateCollection("d", "c", DocumentCollection, false, false, KeyOptions{AllowUserKeys: true, Type: "traditional"}); err != nil {
		t.Fatal(err)
	}
	return s
}
