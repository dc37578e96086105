package stdlib

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"

	"go.starlark.net/starlark"
)

func TestYAML(t *testing.T) {
	runCases(t, "", []testCase{
		{name: "encode order", src: `emit(yaml.encode({"z": 1, "a": [1, "two", None, True, 2.0], "m": {"k": "v"}}))`,
			want: "z: 1\na:\n  - 1\n  - two\n  - null\n  - true\n  - 2.0\nm:\n  k: v\n"},
		{name: "encode quoting", src: `emit(yaml.encode(["true", "1", "null", "1.5", "", "a: b", "2001-12-14"]))`,
			want: "- \"true\"\n- \"1\"\n- \"null\"\n- \"1.5\"\n- \"\"\n- 'a: b'\n- \"2001-12-14\"\n"},
		{name: "encode multiline", src: `emit(yaml.encode({"s": "a\nb\n"}))`, want: "s: |\n  a\n  b\n"},
		{name: "encode empty", src: `emit(yaml.encode({}) + yaml.encode([]))`, want: "{}\n[]\n"},
		{name: "encode scalar", src: `emit(yaml.encode("hi"))`, want: "hi\n"},
		{name: "encode special floats", src: `emit(yaml.encode([float("inf"), -float("inf"), 1e20]))`, want: "- .inf\n- -.inf\n- 1e+20\n"},
		{name: "encode big int", src: `print(yaml.decode(yaml.encode(1 << 80)) == 1 << 80)`, want: "True\n"},
		{name: "encode bytes", src: `emit(yaml.encode(b"\xff\x00"))`, want: "!!binary /wA=\n"},
		{name: "encode int key", src: `emit(yaml.encode({1: "a"}))`, want: "1: a\n"},
		{name: "encode nested tuples", src: `emit(yaml.encode(((1, (2,)),)))`, want: "- - 1\n  - - 2\n"},
		{name: "encode cycle", src: "x = {}\nx['x'] = x\nyaml.encode(x)", wantErr: "yaml.encode: cycle in value"},
		{name: "encode function", src: `yaml.encode([len])`, wantErr: "yaml.encode: cannot encode builtin_function_or_method as YAML"},
		{name: "decode order", src: `print(yaml.decode("z: 1\na: [x, 2.5]\nm: {k: v}\n"))`, want: `{"z": 1, "a": ["x", 2.5], "m": {"k": "v"}}` + "\n"},
		{name: "decode scalars", src: `print(yaml.decode("[true, no, ~, null, 0x10, 1_000, .inf, 1e3, '12', 2001-12-14, 2001-12-14T21:59:43Z]"))`,
			want: `[True, "no", None, None, 16, 1000, +inf, 1000.0, "12", "2001-12-14", "2001-12-14T21:59:43Z"]` + "\n"},
		{name: "decode big int", src: `print(yaml.decode("123456789012345678901234567890") + 1)`, want: "123456789012345678901234567891\n"},
		{name: "decode empty", src: `print(yaml.decode(""), yaml.decode("# only a comment\n"))`, want: "None None\n"},
		{name: "decode first doc", src: `print(yaml.decode("a: 1\n---\nb: 2\n"))`, want: `{"a": 1}` + "\n"},
		{name: "decode all", src: `print(yaml.decode_all("a: 1\n---\nb: 2\n---\n- 3\n"))`, want: `[{"a": 1}, {"b": 2}, [3]]` + "\n"},
		{name: "decode all empty", src: `print(yaml.decode_all(""))`, want: "[]\n"},
		{name: "decode anchors", src: `print(yaml.decode("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\nl: *b\n"))`,
			want: `{"base": {"x": 1, "y": 2}, "d": {"x": 1, "y": 3}, "l": {"x": 1, "y": 2}}` + "\n"},
		{name: "decode binary", src: `print(repr(yaml.decode("!!binary /wA=")))`, want: `b"\xff\x00"` + "\n"},
		{name: "decode int keys", src: `print(yaml.decode("1: a\ntrue: b\n"))`, want: `{1: "a", True: "b"}` + "\n"},
		{name: "decode block", src: `print(repr(yaml.decode("s: |\n  a\n  b\n")["s"]))`, want: `"a\nb\n"` + "\n"},
		{name: "decode error", src: `yaml.decode("a: b: c")`, wantErr: "yaml.decode: mapping values are not allowed in this context"},
		{name: "decode unhashable key", src: `yaml.decode("? [1]\n: x\n")`, wantErr: "yaml.decode: line 1: invalid key"},
		{name: "decode recursive alias", src: `yaml.decode("&a [*a]")`, wantErr: "yaml.decode: line 1: the YAML alias *a refers to a node that contains it (a recursive alias)"},
		{name: "decode too deep", src: `yaml.decode("[" * 1500 + "]" * 1500)`, wantErr: "yaml.decode: line 1: the YAML document nests deeper than its depth limit of 1000 levels"},
		{name: "decode type", src: `yaml.decode(None)`, wantErr: "yaml.decode: for parameter s: got NoneType, want str or bytes"},
		{name: "round trip", src: `v = {"a": [1, {"b": None}], "c": "x: y", "d": "multi\nline"}` + "\nprint(yaml.decode(yaml.encode(v)) == v)", want: "True\n"},
	})
}

// TestHostileYAMLDecode: yaml.decode and yaml.decode_all refuse an
// alias bomb with one line naming the limit, in milliseconds and little
// memory (before, the bomb was walked a million values deep before it
// was stopped).
func TestHostileYAMLDecode(t *testing.T) {
	for _, decode := range []func([]byte) error{
		func(b []byte) error { _, err := DecodeYAML(b); return err },
		func(b []byte) error { _, err := DecodeAllYAML(b); return err },
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		err := decode([]byte(yamldoc.BillionLaughs("")))
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "alias expansion limit of 100000 nodes") {
			t.Fatalf("error %v, want the alias expansion limit", err)
		}
		if took > 2*time.Second {
			t.Errorf("took %v", took)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("allocated %d MB", alloc>>20)
		}
	}
}

func FuzzDecodeYAML(f *testing.F) {
	for _, s := range []string{
		"", "a: 1\n", "- [1, 2]\n- {a: b}\n", "&a [*a]", "a: &x 1\nb: *x\n", "<<: {a: 1}\n",
		"!!binary /wA=", "? [1]\n: x\n", "--- 1\n--- 2\n", "x: !!int 12345678901234567890123",
		"s: |\n  a\n  b\n", "{a: [b, {c: d}]}", "!!float 1", "0o17", "-0b101", "'quoted'",
		yamldoc.BillionLaughs(""), "a: &a {<<: *a}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := DecodeYAML([]byte(s))
		if err != nil {
			return
		}
		// Whatever decodes must encode (unhashable or cyclic values aside).
		if _, err := EncodeYAML(v); err != nil {
			t.Logf("EncodeYAML(%v): %v", v, err)
		}
		_, _ = DecodeAllYAML([]byte(s))
	})
}

func TestEncodeYAMLGo(t *testing.T) {
	d := starlark.NewDict(2)
	d.SetKey(starlark.String("b"), starlark.MakeInt(1))
	d.SetKey(starlark.String("a"), starlark.NewList([]starlark.Value{starlark.String("x")}))
	got, err := EncodeYAML(d)
	if err != nil || string(got) != "b: 1\na:\n  - x\n" {
		t.Fatalf("EncodeYAML = %q, %v", got, err)
	}
	back, err := DecodeYAML(got)
	if err != nil {
		t.Fatal(err)
	}
	if eq, _ := starlark.Equal(back, d); !eq {
		t.Fatalf("DecodeYAML = %v, want %v", back, d)
	}
}
