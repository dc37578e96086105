package starframe

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// run evaluates expr with f bound to a frame of three rows made by kit.
func run(t *testing.T, kit *Kit, expr string) (string, error) {
	t.Helper()
	f, err := frame.FromRows([]string{"id", "n"}, [][]any{{"a", int64(1)}, {"b", int64(3)}, {"c", nil}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{}, "t.star", expr, starlark.StringDict{"f": kit.New(f)})
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

// TestMethods: the methods every frame has, with_column among them; a
// kit adds its own.
func TestMethods(t *testing.T) {
	kit := &Kit{Methods: map[string]Method{"shout": {Doc: "shout()", Fn: func(v *Frame, _ *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		return starlark.String(fmt.Sprintf("%d ROWS", v.Len())), nil
	}}}}
	for _, tc := range []struct{ expr, want, fails string }{
		{expr: `f.with_column("m", lambda r: (r["n"] or 0) * 2).column("m")`, want: "[2, 6, 0]"},
		{expr: `f.with_column("n", ["x", None, "z"]).dtypes`, want: `{"id": "object", "n": "object"}`},
		{expr: `f.with_column("t", lambda r: "2026-01-02T03:04:05.000000").dtypes["t"]`, want: `"datetime64[ns]"`},
		{expr: `f.with_column("m", lambda r: 1.5 if r["id"] == "a" else 2).dtypes["m"]`, want: `"float64"`},
		{expr: `f.filter("n > 2").rows()`, want: `[{"id": "b", "n": 3}]`},
		{expr: `[r["id"] for r in f.sort("id", desc = True)]`, want: `["c", "b", "a"]`},
		{expr: `(len(f), f.shape, f[1]["n"])`, want: "(3, (3, 2), 3)"},
		{expr: `f.shout()`, want: `"3 ROWS"`},
		{expr: `f.with_column("m", [1])`, fails: "frame.with_column: 1 values for 3 rows"},
		{expr: `f.with_column("m", "abc")`, fails: "not a string"},
		{expr: `f.with_column("m", lambda r: r["zz"])`, fails: `frame.with_column: row 0: key "zz" not in dict`},
		{expr: `f.write("x.csv")`, fails: "frame has no .write field or method"},
	} {
		k := kit
		if strings.Contains(tc.expr, "write") {
			k = &Kit{}
		}
		got, err := run(t, k, tc.expr)
		switch {
		case tc.fails != "" && (err == nil || !strings.Contains(err.Error(), tc.fails)):
			t.Errorf("%s: %v, want an error with %q", tc.expr, err, tc.fails)
		case tc.fails == "" && err != nil:
			t.Errorf("%s: %v", tc.expr, err)
		case tc.fails == "" && got != tc.want:
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
	f, _ := frame.FromRows(nil, nil)
	if names := kit.New(f).AttrNames(); !slices.Contains(names, "shout") || !slices.Contains(names, "with_column") {
		t.Errorf("attributes %v", names)
	}
	if docs := (&Kit{}).Docs(); docs["with_column"] == "" || docs["shout"] != "" {
		t.Errorf("docs of a kit without methods: %v", docs)
	}
}

// TestFromValue: a frame, None or a list of dicts make a frame, within a
// row bound; anything else is refused.
func TestFromValue(t *testing.T) {
	row := func(k string, v starlark.Value) *starlark.Dict {
		d := starlark.NewDict(1)
		_ = d.SetKey(starlark.String(k), v)
		return d
	}
	list := starlark.NewList([]starlark.Value{row("a", starlark.MakeInt(1)), row("b", starlark.String("x"))})
	for _, tc := range []struct {
		v     starlark.Value
		max   int
		want  string
		fails string
	}{
		{v: list, want: "[a b] 2"},
		{v: starlark.None, want: "[] 0"},
		{v: list, max: 1, fails: "2 rows, over the limit of 1"},
		{v: starlark.NewList([]starlark.Value{starlark.MakeInt(1)}), fails: "row 0 is a int, not a dict"},
		{v: starlark.String("rows"), fails: "a string, not a frame or a list of dicts"},
		{v: row("a", starlark.None), fails: "a dict, not a frame or a list of dicts"},
		{v: (&Kit{}).New(mustRows(t)), max: 1, fails: "2 rows, over the limit of 1"},
	} {
		f, err := FromValue(context.Background(), tc.v, tc.max)
		if tc.fails != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fails) {
				t.Errorf("%s: %v, want %q", tc.v, err, tc.fails)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.v, err)
			continue
		}
		if got := fmt.Sprint(f.Columns(), f.NumRows()); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.v, got, tc.want)
		}
	}
}

func mustRows(t *testing.T) *frame.Frame {
	f, err := frame.FromRows([]string{"a"}, [][]any{{int64(1)}, {int64(2)}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
