package starvalue

import (
	"encoding/json"
	"math"
	"math/big"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	starlarktime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

type inner struct {
	Z int `json:"z"`
}

type record struct {
	Name    string            `json:"name"`
	Count   int               `json:"count,omitempty"`
	Skip    string            `json:"-"`
	Tags    []string          `json:"tags"`
	Labels  map[string]string `json:"labels,omitempty"`
	When    time.Time         `json:"when,omitzero"`
	Ptr     *int              `json:"ptr"`
	NoTag   bool
	private int
	*inner
	Embedded inner `json:"embedded"`
}

type level string

func TestToStarlark(t *testing.T) {
	seven := 7
	big1 := new(big.Int).Lsh(big.NewInt(1), 70)
	for _, tc := range []struct {
		name string
		in   any
		want string // Starlark repr
	}{
		{"nil", nil, "None"},
		{"bool", true, "True"},
		{"int", -3, "-3"},
		{"int8", int8(-8), "-8"},
		{"uint16", uint16(16), "16"},
		{"uint64 max", uint64(math.MaxUint64), "18446744073709551615"},
		{"int64 min", int64(math.MinInt64), "-9223372036854775808"},
		{"float32", float32(0.1), "0.1"},
		{"float64", 2.5, "2.5"},
		{"string", "é", `"é"`},
		{"named string", level("warn"), `"warn"`},
		{"bytes", []byte("ab"), `b"ab"`},
		{"json int", json.Number("12"), "12"},
		{"json big", json.Number("123456789012345678901234567890"), "123456789012345678901234567890"},
		{"json float", json.Number("1.5e3"), "1500.0"},
		{"big int", big1, "1180591620717411303424"},
		{"time", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), `"2024-01-02T03:04:05.000000"`},
		{"text marshaler", net.IPv4(10, 0, 0, 1), `"10.0.0.1"`},
		{"any slice", []any{1, "a", nil}, `[1, "a", None]`},
		{"string slice", []string{"a", "b"}, `["a", "b"]`},
		{"nil slice", []int(nil), `[]`},
		{"array", [2]int{1, 2}, `[1, 2]`},
		{"map sorted", map[string]any{"b": 1, "a": 2}, `{"a": 2, "b": 1}`},
		{"typed map sorted", map[string]int{"b": 1, "a": 2}, `{"a": 2, "b": 1}`},
		{"int keys", map[int]string{10: "x", 2: "y"}, `{2: "y", 10: "x"}`},
		{"maps slice", []map[string]any{{"a": 1}}, `[{"a": 1}]`},
		{"ordered map", Map{{"z", 1}, {"a", []any{Map{{"k", "v"}}}}}, `{"z": 1, "a": [{"k": "v"}]}`},
		{"pointer", &seven, "7"},
		{"nil pointer", (*int)(nil), "None"},
		{"starlark passthrough", starlark.MakeInt(5), "5"},
		{"struct", record{Name: "n", Skip: "s", Tags: nil, Ptr: &seven, NoTag: true, private: 1, inner: &inner{Z: 9}, Embedded: inner{Z: 1}},
			`{"name": "n", "tags": [], "ptr": 7, "NoTag": True, "z": 9, "embedded": {"z": 1}}`},
		{"struct omit", record{Count: 2, Labels: map[string]string{"k": "v"}, When: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
			`{"name": "", "count": 2, "tags": [], "labels": {"k": "v"}, "when": "2024-01-01T00:00:00.000000", "ptr": None, "NoTag": False, "embedded": {"z": 0}}`},
		{"struct pointer", &inner{Z: 3}, `{"z": 3}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ToStarlark(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tc.want {
				t.Fatalf("ToStarlark(%#v) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestToStarlarkErrors(t *testing.T) {
	type cyclic struct {
		Next *cyclic `json:"next"`
	}
	c := &cyclic{}
	c.Next = c
	for _, tc := range []struct {
		name    string
		in      any
		wantErr string
	}{
		{"chan", make(chan int), "cannot convert Go chan int to a Starlark value"},
		{"func in slice", []any{func() {}}, "cannot convert Go func()"},
		{"struct key", map[struct{}]int{{}: 1}, "unsupported key type"},
		{"cycle", c, "nested too deeply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ToStarlark(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestFromStarlark(t *testing.T) {
	d := starlark.NewDict(2)
	d.SetKey(starlark.String("z"), starlark.MakeInt(1))
	d.SetKey(starlark.String("a"), starlark.NewList([]starlark.Value{starlark.None, starlark.Float(1.5)}))
	set := starlark.NewSet(2)
	set.Insert(starlark.String("x"))
	bigV := starlark.MakeBigInt(new(big.Int).Lsh(big.NewInt(1), 70))
	when := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		in   starlark.Value
		want any
	}{
		{"none", starlark.None, nil},
		{"bool", starlark.True, true},
		{"int", starlark.MakeInt(-4), int64(-4)},
		{"big", bigV, new(big.Int).Lsh(big.NewInt(1), 70)},
		{"float", starlark.Float(0.5), 0.5},
		{"string", starlark.String("s"), "s"},
		{"bytes", starlark.Bytes("b"), []byte("b")},
		{"list", starlark.NewList([]starlark.Value{starlark.MakeInt(1), starlark.String("a")}), []any{int64(1), "a"}},
		{"tuple", starlark.Tuple{starlark.True}, []any{true}},
		{"set", set, []any{"x"}},
		{"dict order", d, Map{{"z", int64(1)}, {"a", []any{nil, 1.5}}}},
		{"struct", starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{"b": starlark.MakeInt(2), "a": starlark.MakeInt(1)}), Map{{"a", int64(1)}, {"b", int64(2)}}},
		{"time", starlarktime.Time(when), when},
		{"duration", starlarktime.Duration(time.Second), time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromStarlark(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("FromStarlark(%v) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}

func TestFromStarlarkErrors(t *testing.T) {
	d := starlark.NewDict(1)
	d.SetKey(starlark.MakeInt(1), starlark.None)
	cyc := starlark.NewList(nil)
	cyc.Append(cyc)
	for _, tc := range []struct {
		name    string
		in      starlark.Value
		wantErr string
	}{
		{"int key", d, "dict key must be a string, got int"},
		{"function", starlark.NewBuiltin("f", nil), "cannot convert builtin_function_or_method to a Go value"},
		{"nested", starlark.NewList([]starlark.Value{starlark.NewBuiltin("f", nil)}), "cannot convert builtin_function_or_method"},
		{"cycle", cyc, "nested too deeply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromStarlark(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	in := Map{{"z", int64(1)}, {"list", []any{"a", 2.5, true, nil}}, {"m", Map{{"k", []byte("v")}}}}
	v, err := ToStarlark(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := FromStarlark(v)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip = %#v, want %#v", out, in)
	}
}

func TestMap(t *testing.T) {
	m := Map{{"b", 1}, {"a", Map{{"y", nil}, {"x", []any{1}}}}}
	if v, ok := m.Get("a"); !ok || !reflect.DeepEqual(v, Map{{"y", nil}, {"x", []any{1}}}) {
		t.Errorf("Get(a) = %v, %v", v, ok)
	}
	if _, ok := m.Get("c"); ok {
		t.Error("Get(c) found a value")
	}
	if got := m.Keys(); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("Keys = %q", got)
	}
	data, err := json.Marshal(m)
	if err != nil || string(data) != `{"b":1,"a":{"y":null,"x":[1]}}` {
		t.Errorf("json.Marshal = %s, %v", data, err)
	}
}
