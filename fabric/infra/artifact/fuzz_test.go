package artifact

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParse: any input either fails with an error or gives a document
// whose JSON is valid, reads back as the same document, and can be
// checked against every kind's schema without a panic.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"name: ops\nlabel: x\ndashboard_sections:\n  - widgets: [{widget_type: t, stream: s}]\n",
		`{"name": "g", "dashboardList": [{"name": "ops"}]}`,
		"a: &x [1, 2]\nb: *x\n",
		"name: 1e400\n",
		"- 1\n- 2\n",
		"",
		"name: !!binary aGVsbG8=\n",
		"? [a, b]\n: c\n",
		`{"s": "true", "n": "1", "z": "null", "d": "2026-01-01", "e": "", "x": "a: b", "h": "#c", "m": "-"}`,
		// Bytes that are not text, characters YAML's reader refuses and
		// escapes it does not know, in a document read as JSON.
		"0: !!binary 0X80",
		`{"a": "\u007f\u0080\ufffe", "b": "\ud83d\ude00"}`,
		// Bombs: refused at once, never expanded.
		"a: &a [*a]\n",
		billionLaughs,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		out := d.JSON()
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("Parse(%q).JSON() = %s: not JSON: %v", data, out, err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("the JSON of a document does not parse: %s: %v", out, err)
		}
		if !reflect.DeepEqual(again.Value(), d.Value()) {
			t.Fatalf("the JSON of a document reads back otherwise: %s", out)
		}
		stored, _ := Record{Doc: d, Source: "yaml"}.MarshalJSON()
		rec, err := decodeRecord(stored)
		if err != nil || !reflect.DeepEqual(rec.Doc.Value(), d.Value()) || rec.Source != "yaml" {
			t.Fatalf("a stored record reads back otherwise: %s: %v", stored, err)
		}
		y, err := d.YAML()
		if err != nil {
			t.Fatalf("YAML of %s: %v", out, err)
		}
		if back, err := Parse(y); err != nil || !reflect.DeepEqual(back.Value(), d.Value()) {
			t.Fatalf("the YAML of %s reads back otherwise (%v):\n%s", out, err, y)
		}
		for _, k := range Kinds {
			rs, err := k.schema()
			if err != nil {
				t.Fatal(err)
			}
			_ = rs.Validate(d.Value())
		}
	})
}

// FuzzDecodeJSON: the fast decoder gives what encoding/json gives, value
// and error alike.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{`{"a": [1, 2.5e3, -0, true, null, "x\u00e9"], "b": {}}`, `[]`, `"\ud800"`, `1e400`, `{"a":1,"a":2}`, "\"\xff\"", `-`, `01`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeJSON(data)
		var want any
		werr := json.Unmarshal(data, &want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: error %v, encoding/json's %v", data, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, encoding/json's %#v", data, got, want)
		}
	})
}
