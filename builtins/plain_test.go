package builtins

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/fabricops/fabric/runtime/stdlib"
	"go.starlark.net/starlark"
)

// TestPlainValueIsItsJSON: a dict's plain values are what its JSON reads
// as (the JSON written in the same walk, and the encoder's), so an add
// that skips decoding checks the document it stores.
func TestPlainValueIsItsJSON(t *testing.T) {
	for _, src := range []string{
		`{}`,
		`{"name": "ops", "n": 3, "big": 123456789012345678901234567890, "neg": -7, "f": 2.5, "e": 1e300, "t": True, "none": None}`,
		`{"nested": {"list": [1, "two", [3.0, {"x": None}]], "empty": {}, "el": []}, "uni": "héllo ✓", "esc": "a\"b\\c\n\t\x01\b\f"}`,
		`{"whole": 90.0, "small": 1.5e-05, "large": 1234567.0, "huge": 1e16}`,
	} {
		v, err := starlark.Eval(&starlark.Thread{}, "x", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		plain, ok := plainJSON(v, 0, &buf)
		if !ok {
			t.Fatalf("%s: no plain value", src)
		}
		var own any
		if err := json.Unmarshal(buf.Bytes(), &own); err != nil {
			t.Fatalf("%s: its JSON %s: %v", src, buf.Bytes(), err)
		}
		text, err := stdlib.EncodeJSON(v, "", false)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := json.Unmarshal(text, &want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), text) {
			t.Errorf("%s: wrote %s, the JSON encoder %s", src, buf.Bytes(), text)
		}
		if !reflect.DeepEqual(plain, want) || !reflect.DeepEqual(own, want) {
			t.Errorf("%s:\n plain %#v\n own JSON %#v\n JSON  %#v", src, plain, own, want)
		}
	}
	for _, src := range []string{`[1]`, `"x"`, `{"t": (1, 2)}`, `{1: 2}`} {
		v, _ := starlark.Eval(&starlark.Thread{}, "x", src, nil)
		if _, ok := plainJSON(v, 0, &bytes.Buffer{}); ok {
			t.Errorf("%s: a plain value, want none", src)
		}
	}
}
