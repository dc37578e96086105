package out

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/stdlib"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

var dialect = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}

// run executes src with out and the standard modules predeclared.
func run(t *testing.T, src string, noColor bool) (stdout, stderr string, err error) {
	t.Helper()
	var so, se bytes.Buffer
	thread := &starlark.Thread{Print: func(_ *starlark.Thread, msg string) { so.WriteString(msg + "\n") }}
	host.Set(thread, &host.IO{Stdout: &so, Stderr: &se, NoColor: noColor})
	predeclared := stdlib.Modules()
	predeclared["out"] = Module()
	predeclared["struct"] = starlark.NewBuiltin("struct", starlarkstruct.Make)
	_, err = starlark.ExecFileOptions(dialect, thread, "test.star", src, predeclared)
	return so.String(), se.String(), err
}

func TestOut(t *testing.T) {
	for _, tc := range []struct {
		name, src      string
		stdout, stderr string
		color          bool
		wantErr        string
	}{
		{name: "table golden", src: `out.table([
    {"name": "alpha", "size": 10, "ok": True, "ratio": 2.50},
    {"name": "b", "size": None, "ok": False, "ratio": 1.0, "tags": ["x", "y"]},
    {"name": "multi\nline", "size": 1 << 64, "meta": {"k": [1, 2]}},
])`, stdout: "" +
			"name        size                  ok     ratio  tags  meta\n" +
			"----------  --------------------  -----  -----  ----  -----------\n" +
			"alpha       10                    True   2.5\n" +
			"b                                 False  1      x, y\n" +
			"multi line  18446744073709551616                      {\"k\":[1,2]}\n"},
		{name: "table bold header", color: true, src: `out.table([{"a": 1, "bb": 2}])`,
			stdout: "\x1b[1ma  bb\x1b[0m\n-  --\n1  2\n"},
		{name: "table columns", src: `out.table([{"id": 1, "n": "x", "extra": 5}], columns=["n", ("ID", "id"), ["Missing", "m"]])`,
			stdout: "n  ID  Missing\n-  --  -------\nx  1\n"},
		{name: "table lists", src: `out.table([[1, "one"], (2, "two", "ignored")], columns=["num", "word"])`,
			stdout: "num  word\n---  ----\n1    one\n2    two\n"},
		{name: "table structs", src: `out.table([struct(b=1, a="x")])`,
			stdout: "a  b\n-  -\nx  1\n"},
		{name: "table wide runes", src: `out.table([{"k": "日本", "v": 1}, {"k": "abc", "v": 2}])`,
			stdout: "k     v\n----  -\n日本  1\nabc   2\n"},
		{name: "table empty with columns", src: `out.table([], columns=["a", "b"])`, stderr: "no rows\n"},
		{name: "table empty", src: `out.table([])`, stderr: "no rows\n"},
		{name: "table whole when not fitted", src: `out.table([{"id": 1, "text": "x" * 300}])`,
			stdout: "id  text\n--  " + strings.Repeat("-", 300) + "\n1   " + strings.Repeat("x", 300) + "\n"},
		{name: "table floats", src: `out.table([{"f": 0.001}, {"f": 1e21}, {"f": 3.0}, {"f": float("nan")}])`,
			stdout: "f\n-----\n0.001\n1e+21\n3\nnan\n"},
		{name: "table lists need columns", src: `out.table([[1]])`, wantErr: "out.table: rows are lists, so columns must be given"},
		{name: "table bad row", src: `out.table([{"a": 1}, 2])`, wantErr: "out.table: row 1 is a int, want dict or list"},
		{name: "table bad column", src: `out.table([{"a": 1}], columns=[1])`, wantErr: "out.table: column 1: want a key or a (header, key) pair"},
		{name: "table bad columns", src: `out.table([{"a": 1}], columns="a")`, wantErr: "out.table: for parameter columns: got string, want list"},
		{name: "json", src: `out.json({"b": [1, 2.0], "a": {}})`, stdout: "{\n  \"b\": [\n    1,\n    2.0\n  ],\n  \"a\": {}\n}\n"},
		{name: "json error", src: `out.json(float("nan"))`, wantErr: "out.json: cannot encode nan as JSON"},
		{name: "yaml", src: `out.yaml({"b": [1], "a": "x"})`, stdout: "b:\n  - 1\na: x\n"},
		{name: "yaml error", src: `out.yaml(len)`, wantErr: "out.yaml: cannot encode builtin_function_or_method as YAML"},
		{name: "write table", src: `out.write(struct(json=False), [{"a": 1}])`, stdout: "a\n-\n1\n"},
		{name: "write table without format flags", src: `out.write(struct(name="x"), [{"a": 1}])`, stdout: "a\n-\n1\n"},
		{name: "write table columns", src: `out.write(struct(json=False), [{"a": 1, "b": 2}], columns=[("B", "b")])`, stdout: "B\n-\n2\n"},
		{name: "write json whole rows", src: `out.write(struct(json=True), [{"a": 1, "b": 2}], columns=["b"])`,
			stdout: "[\n  {\n    \"a\": 1,\n    \"b\": 2\n  }\n]\n"},
		{name: "write yaml", src: `out.write(struct(json=False, yaml=True), [{"a": 1}])`, stdout: "- a: 1\n"},
		{name: "write json before yaml", src: `out.write(struct(json=True, yaml=True), [])`, stdout: "[]\n"},
		{name: "write json not a list", src: `out.write(struct(json=True), None)`, stdout: "null\n"},
		{name: "write table fn rows", src: `out.write(struct(json=False), ["x", "y"], columns=["N"], table=lambda v: [{"N": n} for n in v])`,
			stdout: "N\n-\nx\ny\n"},
		{name: "write table fn prints", src: `out.write(struct(json=False), {"k": 1}, table=lambda v: out.text("k is %d\n" % v["k"]))`,
			stdout: "k is 1\n"},
		{name: "write json skips table fn", src: `out.write(struct(json=True), ["x"], table=lambda v: fail("called"))`,
			stdout: "[\n  \"x\"\n]\n"},
		{name: "write table fn error", src: `out.write(struct(), [], table=lambda v: fail("no table"))`, wantErr: "no table"},
		{name: "write bad args", src: `out.write([], [])`, wantErr: "out.write: for parameter args: got list, want the command's args"},
		{name: "write bad table", src: `out.write(struct(), [], table=1)`, wantErr: "out.write: for parameter table: got int, want a function"},
		{name: "write bad rows", src: `out.write(struct(), {"a": 1}, table=lambda v: 3)`, wantErr: "out.write: the table's rows are a int, want a list"},
		{name: "write string rows", src: `out.write(struct(), "ab")`, wantErr: "out.write: the table's rows are a string, want a list"},
		{name: "write yaml error", src: `out.write(struct(yaml=True), len)`, wantErr: "out.write: cannot encode builtin_function_or_method as YAML"},
		{name: "notice", src: `out.notice("fetched", 3, "rows", None)`, stderr: "fetched 3 rows None\n"},
		{name: "warn", src: `out.warn("slow", 1.5)`, stderr: "warning: slow 1.5\n"},
		{name: "notice kwargs", src: `out.notice(x=1)`, wantErr: `out.notice: unexpected keyword argument "x"`},
		{name: "text", src: `out.text("a")` + "\n" + `out.text(b"b\n")`, stdout: "ab\n"},
		{name: "text type", src: `out.text(1)`, wantErr: "out.text: for parameter s: got int, want str or bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, err := run(t, tc.src, !tc.color)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if stdout != tc.stdout {
				t.Errorf("stdout:\n%q\nwant:\n%q", stdout, tc.stdout)
			}
			if stderr != tc.stderr {
				t.Errorf("stderr %q, want %q", stderr, tc.stderr)
			}
		})
	}
}

func TestWriteTable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers []string
		rows    [][]string
		bold    bool
		width   int
		want    string
	}{
		{"basic", []string{"NAME", "STATUS"}, [][]string{{"web", "up"}, {"database", "down"}}, false, 0,
			"NAME      STATUS\n--------  ------\nweb       up\ndatabase  down\n"},
		{"short rows and empty last cells", []string{"a", "b", "c"}, [][]string{{"1"}, {"22", "", ""}}, false, 0,
			"a   b  c\n--  -  -\n1\n22\n"},
		{"bold", []string{"x"}, nil, true, 0, "\x1b[1mx\x1b[0m\n-\n"},
		{"nothing", nil, nil, false, 0, ""},
		{"fits already", []string{"a", "b"}, [][]string{{"1", "22"}}, false, 7, "a  b\n-  --\n1  22\n"},
		{"widest cut first", []string{"id", "name", "text"}, [][]string{{"1", "alpha", strings.Repeat("t", 40)}}, false, 30,
			"id  name   text\n--  -----  " + strings.Repeat("-", 19) + "\n1   alpha  " + strings.Repeat("t", 18) + "…\n"},
		{"two wide columns share", []string{"a", "b"}, [][]string{{strings.Repeat("a", 30), strings.Repeat("b", 30)}}, false, 22,
			"a" + strings.Repeat(" ", 11) + "b\n" + strings.Repeat("-", 10) + "  " + strings.Repeat("-", 10) + "\n" +
				strings.Repeat("a", 9) + "…  " + strings.Repeat("b", 9) + "…\n"},
		{"never below the minimum", []string{"a", "b"}, [][]string{{strings.Repeat("a", 20), strings.Repeat("b", 20)}}, false, 5,
			"a" + strings.Repeat(" ", 9) + "b\n" + strings.Repeat("-", 8) + "  " + strings.Repeat("-", 8) + "\n" +
				strings.Repeat("a", 7) + "…  " + strings.Repeat("b", 7) + "…\n"},
		{"free text cut before names", []string{"name", "description"}, [][]string{{strings.Repeat("n", 20), "a long description of it"}}, false, 34,
			"name" + strings.Repeat(" ", 18) + "description\n" + strings.Repeat("-", 20) + "  " + strings.Repeat("-", 12) + "\n" +
				strings.Repeat("n", 20) + "  a long desc…\n"},
		{"wide runes cut whole", []string{"k"}, [][]string{{"日本語日本語日本語"}}, false, 8, "k\n--------\n日本語…\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTable(&b, tc.headers, tc.rows, tc.bold, tc.width); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Fatalf("got:\n%q\nwant:\n%q", b.String(), tc.want)
			}
			for _, line := range strings.Split(b.String(), "\n") {
				if strings.HasSuffix(line, " ") {
					t.Errorf("trailing space in %q", line)
				}
			}
		})
	}
}

func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é", 1}, {"e\u0301", 1}, {"日本語", 6}, {"ｈｉ", 4}, {"🙂", 2},
	} {
		if got := Width(tc.s); got != tc.want {
			t.Errorf("Width(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestCell(t *testing.T) {
	d := starlark.NewDict(1)
	d.SetKey(starlark.String("k"), starlark.NewList([]starlark.Value{starlark.MakeInt(1)}))
	for _, tc := range []struct {
		v    starlark.Value
		want string
	}{
		{starlark.None, ""},
		{starlark.True, "True"},
		{starlark.MakeInt(-3), "-3"},
		{starlark.Float(2.5), "2.5"},
		{starlark.Float(100), "100"},
		{starlark.Float(1.5e-7), "1.5e-7"},
		{starlark.String("a\r\nb\tc"), "a b c"},
		{starlark.NewList([]starlark.Value{starlark.String("a"), starlark.MakeInt(1), starlark.None}), "a, 1, "},
		{starlark.Tuple{starlark.NewList(nil)}, "[[]]"},
		{d, `{"k":[1]}`},
		{starlark.Bytes("xy"), `b"xy"`},
	} {
		if got := Cell(tc.v); got != tc.want {
			t.Errorf("Cell(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestDocs(t *testing.T) {
	mod, ok := Module().(*starlarkstruct.Module)
	if !ok || mod.Name != "out" {
		t.Fatalf("Module() = %v", Module())
	}
	if d, ok := doc.Lookup("out"); !ok || d == "" {
		t.Error("out has no doc")
	}
	for name, v := range mod.Members {
		b, ok := v.(*starlark.Builtin)
		if !ok {
			t.Errorf("out.%s is a %s, want a builtin", name, v.Type())
			continue
		}
		if b.Name() != "out."+name {
			t.Errorf("out.%s is named %q", name, b.Name())
		}
		d, _ := doc.Lookup(b.Name())
		first, _, _ := strings.Cut(d, "\n")
		if !strings.HasPrefix(first, name+"(") || !strings.HasSuffix(first, ")") {
			t.Errorf("out.%s: doc first line %q, want its signature", name, first)
		}
	}
}

func TestChosen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs starlark.StringDict
		want  Format
	}{
		{"no flags", starlark.StringDict{}, Table},
		{"other flags", starlark.StringDict{"name": starlark.String("x")}, Table},
		{"json false", starlark.StringDict{"json": starlark.False}, Table},
		{"json", starlark.StringDict{"json": starlark.True}, JSON},
		{"yaml", starlark.StringDict{"json": starlark.False, "yaml": starlark.True}, YAML},
		{"json first", starlark.StringDict{"json": starlark.True, "yaml": starlark.True}, JSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Chosen(starlarkstruct.FromStringDict(starlark.String("args"), tc.attrs)); got != tc.want {
				t.Errorf("Chosen = %q, want %q", got, tc.want)
			}
		})
	}
}
