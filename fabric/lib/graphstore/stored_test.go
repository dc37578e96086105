package graphstore

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/fabricops/fabric/fabric/lib/docjson"
)

// TestCompactLine: a line whose first member is its _key is stored
// without it; any other line is refused (and stored whole).
func TestCompactLine(t *testing.T) {
	tests := []struct {
		line, key string
		want      string // "" when refused
	}{
		{`{"_key":"k1","a":1}`, "k1", "\x00" + `{"_rev":"_r","a":1}`},
		{`{"_key":"k1"}`, "k1", "\x00" + `{"_rev":"_r"}`},
		{`{"_key":"k1" , "a":[1]}`, "k1", "\x00" + `{"_rev":"_r", "a":[1]}`},
		{`{"a":1,"_key":"k1"}`, "k1", ""},
		{`{"_key":"k10","a":1}`, "k1", ""},
		{`{"_key":"k1x"}`, "k1", ""},
		{`{"_key":"k1`, "k1", ""},
	}
	for _, tc := range tests {
		got, ok := compactLine(nil, []byte(tc.line), tc.key, "_r")
		if ok != (tc.want != "") || ok && string(got) != tc.want {
			t.Errorf("compactLine(%s) = %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
}

// TestStoredForms: documents stored compact, stored whole by InsertLines
// (_key not first) and records of the whole form written before the
// compact one read back alike, by every read path.
func TestStoredForms(t *testing.T) {
	s := openCollection(t)
	// A record of the whole form, as stores kept documents before (there
	// when the collection's key filter is built, at its first write).
	if err := s.db.Set(docKey("d", "c", "z"), []byte(`{"_id":"c/z","_key":"z","_rev":"_9","n":26}`), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	// Its order record, as buildOrder writes it when such a store opens.
	if err := s.db.Set(orderKey("d", "c", "_9", "z"), nil, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	lines := [][]byte{[]byte(`{"_key":"a","n":1}`), []byte(`{"n":2,"_key":"b"}`)}
	heads := make([]Head, len(lines))
	for i, l := range lines {
		h, err := headOf(l)
		if err != nil {
			t.Fatal(err)
		}
		heads[i] = h
	}
	if _, err := s.InsertLines("d", "c", lines, heads, OverwriteConflict); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert("d", "c", []any{map[string]any{"_key": "c", "n": json.Number("3")}}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a", "b", "c", "z"} {
		data, err := s.Document("d", "c", key)
		if err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("%s: %s: %v", key, data, err)
		}
		if d["_key"] != key || d["_id"] != "c/"+key || d["_rev"] == nil || d["n"] == nil || len(d) != 4 {
			t.Errorf("Document %s = %s", key, data)
		}
		r, err := s.NewReader()
		if err != nil {
			t.Fatal(err)
		}
		doc, err := r.Document("d", "c", key)
		r.Close()
		if err != nil || !reflect.DeepEqual(map[string]any(doc), normalizeNumbers(d)) {
			t.Errorf("Reader.Document %s = %v, %v; want %v", key, doc, err, d)
		}
	}
	seen := 0
	err := s.Scan("d", "c", func(d Doc) bool {
		if d["_id"] != "c/"+d["_key"].(string) {
			t.Errorf("Scan: %v", d)
		}
		seen++
		return true
	})
	if err != nil || seen != 4 {
		t.Fatalf("Scan saw %d documents, %v", seen, err)
	}
	// Updates read the old document whatever its form.
	res, err := s.Modify("d", "c", []any{map[string]any{"_key": "z", "m": true}, map[string]any{"_key": "a", "m": true}}, false, true, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil || r.New["n"] == nil || r.New["m"] != true || r.Old["_id"] != "c/"+r.Key {
			t.Errorf("Modify %s: %+v", r.Key, r)
		}
	}
}

func headOf(line []byte) (Head, error) {
	h := Head{Values: make([]any, len(HeadNames)), Present: make([]bool, len(HeadNames))}
	return h, docjsonFieldsInto(line, h)
}

// normalizeNumbers turns encoding/json's float64s into the json.Numbers
// documents hold.
func normalizeNumbers(d map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range d {
		if f, ok := v.(float64); ok {
			b, _ := json.Marshal(f)
			v = json.Number(b)
		}
		out[k] = v
	}
	return out
}

func docjsonFieldsInto(line []byte, h Head) error {
	return docjson.FieldsInto(line, HeadNames, h.Values, h.Present)
}
