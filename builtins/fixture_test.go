package builtins_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/stdlib"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixture runs Starlark snippets against a real test fabric, with the
// fabric's builtins and the standard modules predeclared, the way a
// workflow sees them.
type fixture struct {
	t      *testing.T
	Fabric *fabrictest.Fabric
	Env    *builtins.Env
	// Dir is the working directory of the snippets (a temp dir).
	Dir     string
	globals starlark.StringDict
}

// newFixture starts a test fabric (one per test) and the builtins over it.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, Fabric: fabrictest.Start(t, fabrictest.Options{}), Dir: t.TempDir()}
	f.Env = &builtins.Env{Home: f.Fabric.Home}
	t.Cleanup(f.Env.Close)
	f.globals = starlark.StringDict{}
	for k, v := range stdlib.Modules() {
		f.globals[k] = v
	}
	for k, v := range builtins.Modules(f.Env) {
		f.globals[k] = v
	}
	return f
}

// Thread returns a thread whose prints go to out and whose context a
// host.Interrupt ends.
func (f *fixture) Thread(out *bytes.Buffer) *starlark.Thread {
	th := &starlark.Thread{Name: f.t.Name(), Print: func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }}
	host.Set(th, &host.IO{Stdin: strings.NewReader(""), Stdout: out, Stderr: out, Dir: f.Dir, NoColor: true})
	host.AttachContext(th)
	return th
}

// Run runs src on thread and returns what it printed and its error.
func (f *fixture) Run(thread *starlark.Thread, out *bytes.Buffer, src string) (string, error) {
	_, err := starlark.ExecFileOptions(runtime.Dialect, thread, "snippet.star", src, f.globals)
	return out.String(), err
}

// Exec runs src on a new thread; a failure fails the test.
func (f *fixture) Exec(src string) string {
	f.t.Helper()
	var out bytes.Buffer
	got, err := f.Run(f.Thread(&out), &out, src)
	if err != nil {
		f.t.Fatalf("%v\nsnippet:\n%s\noutput:\n%s", err, src, got)
	}
	return got
}

// File writes content to name in the snippets' directory and returns its path.
func (f *fixture) File(name, content string) string {
	f.t.Helper()
	p := filepath.Join(f.Dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}
