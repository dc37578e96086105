package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// TestProgramCache: a bundled script runs the same from its compiled
// program kept on disk as from its source, a second runtime decodes it
// without parsing, what a command lacks is kept too, and a damaged entry
// is a miss, not a failure.
func TestProgramCache(t *testing.T) {
	ds := &starlarkstruct.Module{Name: "dataset", Members: starlark.StringDict{"list": starlark.None}}
	bundle := fstest.MapFS{
		"cmd.star":      {Data: []byte("load('@fabric//lib/util.star', 'twice')\nX = twice(21)\ndef _get(args):\n    return frame.read(dataset.get('a'))\n")},
		"lib/util.star": {Data: []byte("def twice(n):\n    return 2 * n\n")},
	}
	dir := t.TempDir()
	newRT := func() *Runtime {
		return New(Options{Predeclared: starlark.StringDict{"dataset": ds}, Bundle: bundle, CacheDir: dir, Absent: func(string) starlark.Value { return starlark.None }})
	}
	run := func(rt *Runtime) starlark.StringDict {
		t.Helper()
		g, err := rt.ExecBundled(rt.NewThread("t"), "cmd.star")
		if err != nil {
			t.Fatal(err)
		}
		if x := g["X"].(starlark.Int).String(); x != "42" {
			t.Fatalf("X = %s, want 42", x)
		}
		if got := strings.Join(rt.FuncLacks(g["_get"].(starlark.Callable)), " "); got != "dataset.get frame" {
			t.Fatalf("_get lacks %q, want dataset.get frame", got)
		}
		return g
	}
	first := newRT()
	run(first)
	if len(first.files) == 0 {
		t.Fatal("the first run parsed nothing")
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	if len(entries) != 3 { // two programs and a command's lacks
		t.Fatalf("cache holds %d entries, want 3: %v", len(entries), entries)
	}
	second := newRT()
	run(second)
	if len(second.files) != 0 {
		t.Errorf("the second run parsed %d files; want them all decoded from the cache", len(second.files))
	}
	// A runtime with other predeclared names compiles anew.
	other := New(Options{Bundle: bundle, CacheDir: dir, Absent: func(string) starlark.Value { return starlark.None }})
	if _, err := other.ExecBundled(other.NewThread("t"), "cmd.star"); err != nil {
		t.Fatal(err)
	}
	if len(other.files) == 0 {
		t.Error("a runtime with other predeclared names used programs compiled for another set")
	}
	for _, e := range entries {
		if err := os.WriteFile(e, []byte("damaged\x00"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	damaged := newRT()
	run(damaged)
	if len(damaged.files) == 0 {
		t.Error("a damaged entry was used")
	}
}
