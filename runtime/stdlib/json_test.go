package stdlib

import (
	"math"
	"testing"

	"go.starlark.net/starlark"
)

func TestJSON(t *testing.T) {
	runCases(t, "", []testCase{
		{name: "compact", src: `print(json.encode({"b": 1, "a": [True, None, 2.5, "x"]}))`, want: `{"b":1,"a":[true,null,2.5,"x"]}` + "\n"},
		{name: "sort keys", src: `print(json.encode({"b": 1, "a": 2}, sort_keys=True))`, want: `{"a":2,"b":1}` + "\n"},
		{name: "float spelling", src: `print(json.encode([1.0, 0.1, 1e16, 1e-5, -0.0, 123456.789]))`, want: `[1.0,0.1,1e+16,1e-05,-0.0,123456.789]` + "\n"},
		{name: "big int", src: `print(json.encode(1 << 70))`, want: "1180591620717411303424\n"},
		{name: "strings", src: `print(json.encode("é<>&\"\\\n\t\x01"))`, want: `"é<>&\"\\\n\t\u0001"` + "\n"},
		{name: "indent int", src: `print(json.encode({"a": [1, 2], "b": {}, "c": []}, indent=2))`, want: "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": []\n}\n"},
		{name: "indent str", src: `print(json.encode([1], indent="\t"))`, want: "[\n\t1\n]\n"},
		{name: "tuple set struct-less", src: `print(json.encode((1, set([2]))))`, want: "[1,[2]]\n"},
		{name: "nested tuples", src: `print(json.encode(((1, (2,)), [(3,)])))`, want: "[[1,[2]],[[3]]]\n"},
		{name: "deep", src: "x = []\nfor i in range(2000):\n    x = [x]\njson.encode(x)", wantErr: "nested too deeply"},
		{name: "nan", src: `json.encode(float("nan"))`, wantErr: "json.encode: cannot encode nan as JSON"},
		{name: "inf", src: `json.encode([float("inf")])`, wantErr: "cannot encode +inf as JSON"},
		{name: "int key", src: `json.encode({1: 2})`, wantErr: "json.encode: cannot encode dict with int key as JSON"},
		{name: "function", src: `json.encode(len)`, wantErr: "cannot encode builtin_function_or_method as JSON"},
		{name: "cycle", src: "x = []\nx.append(x)\njson.encode(x)", wantErr: "cycle in JSON structure"},
		{name: "bad indent", src: `json.encode(1, indent=1.5)`, wantErr: "want int or str"},
		{name: "decode order", src: `d = json.decode('{"z": 1, "a": {"y": [1, 2.0, 3e2]}}')` + "\nprint(d, type(d['a']['y'][1]), type(d['a']['y'][2]))", want: `{"z": 1, "a": {"y": [1, 2.0, 300.0]}} float float` + "\n"},
		{name: "decode big", src: `print(json.decode("123456789012345678901234567890") + 1)`, want: "123456789012345678901234567891\n"},
		{name: "decode scalars", src: `print(json.decode(' [true, false, null, "\\u00e9"] '))`, want: `[True, False, None, "é"]` + "\n"},
		{name: "decode bytes", src: `print(json.decode(b'{"a": 1}'))`, want: `{"a": 1}` + "\n"},
		{name: "decode error offset", src: `json.decode('{"a": x}')`, wantErr: "json.decode: at offset 6: invalid character 'x'"},
		{name: "decode truncated", src: `json.decode('[1, 2')`, wantErr: "json.decode: at offset 5: unexpected end of JSON text"},
		{name: "decode empty", src: `json.decode('  ')`, wantErr: "json.decode: at offset 0: empty JSON text"},
		{name: "decode trailing", src: `json.decode('[1] [2]')`, wantErr: "json.decode: at offset 4: unexpected text after the JSON value"},
		{name: "decode out of range", src: `json.decode('1e400')`, wantErr: "number 1e400 is out of range"},
		{name: "decode type", src: `json.decode(1)`, wantErr: "json.decode: for parameter s: got int, want str or bytes"},
		{name: "indent", src: `print(json.indent('{"b":1.0,"a":[1,{}]}'))`, want: "{\n  \"b\": 1.0,\n  \"a\": [\n    1,\n    {}\n  ]\n}\n"},
		{name: "indent str", src: `print(json.indent('[1]', indent="    "))`, want: "[\n    1\n]\n"},
		{name: "indent invalid", src: `json.indent('[1,]')`, wantErr: "json.indent: at offset 3: invalid character ']'"},
		{name: "canonical", src: `print(json.canonical({"b": [1.0, 2.5, 1e21, 1e-7, 0.000001, -0.0], "a": {"é": 1, "z": None, "B": True}}))`, want: `{"a":{"B":true,"z":null,"é":1},"b":[1,2.5,1e+21,1e-7,0.000001,0]}` + "\n"},
		{name: "canonical int float agree", src: `print(json.canonical(1e20) == json.canonical(100000000000000000000))`, want: "True\n"},
		{name: "round trip", src: `s = '{"k":[1,2.5,"x",null,{"n":true}]}'` + "\nprint(json.encode(json.decode(s)) == s)", want: "True\n"},
	})
}

func TestEncodeDecodeJSONGo(t *testing.T) {
	d := starlark.NewDict(2)
	d.SetKey(starlark.String("z"), starlark.MakeInt(1))
	d.SetKey(starlark.String("a"), starlark.NewList([]starlark.Value{starlark.Float(1), starlark.None}))
	for _, tc := range []struct {
		indent string
		sort   bool
		want   string
	}{
		{"", false, `{"z":1,"a":[1.0,null]}`},
		{"", true, `{"a":[1.0,null],"z":1}`},
		{" ", false, "{\n \"z\": 1,\n \"a\": [\n  1.0,\n  null\n ]\n}"},
	} {
		got, err := EncodeJSON(d, tc.indent, tc.sort)
		if err != nil || string(got) != tc.want {
			t.Errorf("EncodeJSON(%q, %v) = %q, %v; want %q", tc.indent, tc.sort, got, err, tc.want)
		}
	}
	v, err := DecodeJSON([]byte(`{"z":1,"a":[1.0,null]}`))
	if err != nil {
		t.Fatal(err)
	}
	if eq, _ := starlark.Equal(v, d); !eq {
		t.Errorf("DecodeJSON = %v, want %v", v, d)
	}
}

func TestFloatFormats(t *testing.T) {
	for _, tc := range []struct {
		f         float64
		py, canon string
	}{
		{0, "0.0", "0"},
		{math.Copysign(0, -1), "-0.0", "0"},
		{1, "1.0", "1"},
		{-2.5, "-2.5", "-2.5"},
		{0.1, "0.1", "0.1"},
		{1e-4, "0.0001", "0.0001"},
		{1e-5, "1e-05", "0.00001"},
		{1e-7, "1e-07", "1e-7"},
		{1.5e-7, "1.5e-07", "1.5e-7"},
		{123456789.125, "123456789.125", "123456789.125"},
		{1e15, "1000000000000000.0", "1000000000000000"},
		{1e16, "1e+16", "10000000000000000"},
		{1.25e20, "1.25e+20", "125000000000000000000"},
		{1e21, "1e+21", "1e+21"},
		{1.5e300, "1.5e+300", "1.5e+300"},
		{math.MaxFloat64, "1.7976931348623157e+308", "1.7976931348623157e+308"},
		{5e-324, "5e-324", "5e-324"},
	} {
		if got := PyFloat(tc.f); got != tc.py {
			t.Errorf("PyFloat(%v) = %q, want %q", tc.f, got, tc.py)
		}
		if got := CanonicalFloat(tc.f); got != tc.canon {
			t.Errorf("CanonicalFloat(%v) = %q, want %q", tc.f, got, tc.canon)
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `"\ud83d\ude00\u00e9"`, `-0.0e+1`, `[{}]`, `123456789012345678901234567890`, `"\ud800x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := DecodeJSON([]byte(s))
		if err != nil {
			return
		}
		data, err := EncodeJSON(v, "", false)
		if err != nil {
			t.Fatalf("EncodeJSON(DecodeJSON(%q)): %v", s, err)
		}
		back, err := DecodeJSON(data)
		if err != nil {
			t.Fatalf("DecodeJSON(%q) of re-encoded %q: %v", data, s, err)
		}
		if eq, err := starlark.Equal(v, back); err != nil || !eq {
			t.Fatalf("round trip of %q: %v != %v", s, v, back)
		}
	})
}
