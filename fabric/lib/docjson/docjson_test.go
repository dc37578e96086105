package docjson

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"testing"
)

// FuzzEncode: Encode writes what encoding/json writes for any
// document read from JSON.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":"x<y>&\u2028\"\\\n","c":[1.5,true,null,{"z":1,"y":[]}]}`, `{}`, `{"k":"\xff\t"}`, `{"n":-0.0e10}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.UseNumber()
		var d map[string]any
		if dec.Decode(&d) != nil || d == nil {
			return
		}
		got, err1 := Encode(d)
		want, err2 := json.Marshal(d)
		if (err1 == nil) != (err2 == nil) || err1 == nil && !bytes.Equal(got, want) {
			t.Fatalf("Encode(%s):\n got %s %v\nwant %s %v", s, got, err1, want, err2)
		}
	})
}

// FuzzAppendFloat: a float64 is written as encoding/json writes it.
func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, -0.0, 1.5, 6.88, 1e-7, 1e21, 123456789e13, -2.5e-300, 1e308, math.NaN(), math.Inf(-1)} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got, err1 := AppendFloat([]byte("x"), x)
		want, err2 := json.Marshal(x)
		if (err1 == nil) != (err2 == nil) || err1 == nil && string(got) != "x"+string(want) {
			t.Fatalf("AppendFloat(%v) = %s %v, want %s %v", x, got, err1, want, err2)
		}
	})
}

// TestEncodeValues: the Go values documents are made of, beside those
// read from JSON.
func TestEncodeValues(t *testing.T) {
	d := map[string]any{"s": "é", "f": 1.5, "i": int64(-3), "n": 7, "b": false, "nil": nil, "m": map[string]any{"b": 1.0, "a": "x"}}
	got, err := Encode(d)
	want, _ := json.Marshal(d)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %s %v, want %s", got, err, want)
	}
}

// FuzzDecode: Decode reads what encoding/json's Decoder with UseNumber
// reads (one value, then only blanks), and fails where it fails.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,-0.5e+3],"c":{"d":"\u00e9\ud83d\ude00\\\/"}}`, `[]`, `"\ud800x"`, `{"a":1,"a":2}`, ` 7 `, `01`, `{"a" 1}`, "\"\xff\"", `[1,]`, `"\u0000"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err1 := Decode([]byte(s))
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.UseNumber()
		var want any
		err2 := dec.Decode(&want)
		if err2 == nil {
			// Only blanks may follow.
			var extra any
			if dec.Decode(&extra) != io.EOF {
				err2 = ErrSyntax
			}
		}
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("Decode(%q): error %v, encoding/json %v", s, err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q):\n got %#v\nwant %#v", s, got, want)
		}
	})
}

// FuzzDecodeFloats: DecodeFloats reads what json.Unmarshal reads into an
// any, and fails where it fails.
func FuzzDecodeFloats(f *testing.F) {
	for _, s := range []string{`{"a":1.5e3,"b":[-0,1e400]}`, `[1,2]`, `"x"`, `1e-400`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err1 := DecodeFloats([]byte(s))
		var want any
		err2 := json.Unmarshal([]byte(s), &want)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("DecodeFloats(%q): error %v, encoding/json %v", s, err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeFloats(%q):\n got %#v\nwant %#v", s, got, want)
		}
	})
}

// FuzzFields: Fields accepts what Decode accepts as an object, and gives
// the named members as Decode gives them.
func FuzzFields(f *testing.F) {
	for _, s := range []string{`{"_key":"a","x":[1,{"y":"\u00e9"}],"_from":"n/1","_key":"b"}`, `{}`, `{"a\u005fkey":1}`, `{"x":tru}`, `[1]`, `{"a":"\t"}`, ` {"_to":null} `} {
		f.Add(s)
	}
	names := []string{"_key", "_from", "_to", "a_key"}
	f.Fuzz(func(t *testing.T, s string) {
		vals, present, err1 := Fields([]byte(s), names)
		m, err2 := DecodeObject([]byte(s))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("Fields(%q): error %v, DecodeObject %v", s, err1, err2)
		}
		if err1 != nil {
			return
		}
		for i, n := range names {
			v, ok := m[n]
			if ok != present[i] || !reflect.DeepEqual(v, vals[i]) {
				t.Fatalf("Fields(%q) %s: %#v %v, want %#v %v", s, n, vals[i], present[i], v, ok)
			}
		}
	})
}
