package runtime

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// TestLacks: what a program reaches that the predeclared names lack, found
// through the resolver: a local of a lacking name's spelling is not it, a
// module member counts, and loaded modules count only for what is used.
func TestLacks(t *testing.T) {
	ds := &starlarkstruct.Module{Name: "dataset", Members: starlark.StringDict{"list": starlark.None}}
	bundle := fstest.MapFS{
		"lib/show.star": {Data: []byte("def show(x):\n    return frame.read(x)\n\ndef plain(x):\n    return x\n")},
		// A load cycle that re-exports a name: running it fails, and
		// looking at it must end.
		"lib/a.star": {Data: []byte("load('@fabric//lib/b.star', 'x')\n")},
		"lib/b.star": {Data: []byte("load('@fabric//lib/a.star', 'x')\n")},
	}
	rt := New(Options{Predeclared: starlark.StringDict{"dataset": ds}, Bundle: bundle, Absent: func(string) starlark.Value { return starlark.None }})
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"nothing", "x = dataset.list()\n", nil},
		{"a member", "x = dataset.get('a')\n", []string{"dataset.get"}},
		{"a name", "frame.read('a')\n", []string{"frame"}},
		{"a local of the name", "def f(frame):\n    return frame\nf(1)\n", nil},
		{"a field of the name", "x = struct(frame = 1).frame\n", nil},
		{"in a function", "def f():\n    return output(1)\n", []string{"output"}},
		{"a used load", "load('@fabric//lib/show.star', 'show')\nshow(1)\n", []string{"frame"}},
		{"an unused function of a load", "load('@fabric//lib/show.star', 'plain')\nplain(1)\n", nil},
		{"a load cycle", "load('@fabric//lib/a.star', 'x')\nx(1)\n", nil},
		{"help, the whole build's list", "help()\n", []string{"help"}},
	} {
		if got := rt.Lacks(tc.name+".star", []byte(tc.src)); !reflect.DeepEqual(got, tc.want) && len(got)+len(tc.want) > 0 {
			t.Errorf("%s: lacks %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFuncLacks: a command's function lacks only what it reaches, not what
// the rest of its script does; and the script still runs, with stand-ins.
func TestFuncLacks(t *testing.T) {
	ds := &starlarkstruct.Module{Name: "dataset", Members: starlark.StringDict{"list": starlark.None}}
	rt := New(Options{Predeclared: starlark.StringDict{"dataset": ds}, Absent: func(string) starlark.Value { return starlark.None }})
	src := "COLS = ['a']\ndef _list(args):\n    return dataset.list(), COLS\ndef _get(args):\n    return frame.read(dataset.get('a'))\n"
	g, err := rt.ExecFile(rt.NewThread("t"), "cmd.star", src)
	if err != nil {
		t.Fatal(err)
	}
	if got := rt.FuncLacks(g["_list"].(starlark.Callable)); len(got) != 0 {
		t.Errorf("_list lacks %v", got)
	}
	if got := strings.Join(rt.FuncLacks(g["_get"].(starlark.Callable)), " "); got != "dataset.get frame" {
		t.Errorf("_get lacks %q", got)
	}
}
