package builtins

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/fabricops/fabric/runtime/stdlib"
	"go.starlark.net/starlark"
)

// TestPlainValueIsItsJSON: a dict's plain values are what its JSON reads
// as, so an add that skips decoding checks the document it stores.
func TestPlainValueIsItsJSON(t *testing.T) {
	for _, src := range []string{
		`{}`,
		`{"name": "ops", "n": 3, "big": 123456789012345678901234567890, "neg": -7, "f": 2.5, "e": 1e300, "t": True, "none": None}`,
		`{"nested": {"list": [1, "two", [3.0, {"x": None}]], "empty": {}, "el": []}, "uni": "héllo ✓", "esc": "a\"b\\c\n"}`,
	} {
		v, err := starlark.Eval(&starlark.Thread{}, "x", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		plain, ok := plainValue(v, 0)
		if !ok {
			t.Fatalf("%s: no plain value", src)
		}
		text, err := stdlib.EncodeJSON(v, "", false)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := json.Unmarshal(text, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(plain, want) {
			t.Errorf("%s:\n plain %#v\n JSON  %#v", src, plain, want)
		}
	}
	for _, src := range []string{`[1]`, `"x"`, `{"t": (1, 2)}`, `{1: 2}`} {
		v, _ := starlark.Eval(&starlark.Thread{}, "x", src, nil)
		if _, ok := plainValue(v, 0); ok {
			t.Errorf("%s: a plain value, want none", src)
		}
	}
}
