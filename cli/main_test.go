package cli

import (
	"bytes"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fabricops/fabric/internal/testutil"
	"github.com/fabricops/fabric/runtime/command"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/scripts"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestMain runs the tests with tables 1,000 columns wide, whatever $COLUMNS
// the caller's shell exports: the transcripts' scrubber replaces volatile
// values (ids, times) only when they are whole, so cells must not be cut.
// A test that shows a table fitted to a narrower terminal sets $COLUMNS
// itself.
func TestMain(m *testing.M) {
	os.Setenv("COLUMNS", "1000")
	os.Exit(m.Run())
}

// run runs the client through Main, as the binary does, in a fresh
// FABRIC_HOME, and returns its stdout, stderr and exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	if os.Getenv("FABRIC_HOME") == "" || !strings.HasPrefix(os.Getenv("FABRIC_HOME"), os.TempDir()) {
		t.Setenv("FABRIC_HOME", t.TempDir())
	}
	t.Setenv("NO_COLOR", "1")
	var stdout, stderr bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// write creates a file under dir and returns its path.
func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVersionAndHelp(t *testing.T) {
	out, _, code := run(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "client ") {
		t.Fatalf("version: %q %d", out, code)
	}
	out, _, code = run(t, "", "help")
	if code != 0 || !strings.Contains(out, "checksum") || !strings.Contains(out, "bot-package generate") {
		t.Fatalf("help lists commands: %q %d", out, code)
	}
	out, _, code = run(t, "", "help", "bot-package")
	if code != 0 || !strings.Contains(out, "bot-package generate") || strings.Contains(out, "checksum") {
		t.Fatalf("help GROUP lists the group: %q %d", out, code)
	}
	a, _, _ := run(t, "", "help", "checksum")
	b, _, _ := run(t, "", "checksum", "-h")
	if a != b || !strings.HasPrefix(a, "usage: client checksum --pipeline FILE") {
		t.Fatalf("help COMMAND = COMMAND -h:\n%s\n%s", a, b)
	}
}

// TestCommandHelpGolden checks the -h of every bundled command.
func TestCommandHelpGolden(t *testing.T) {
	sh := &shell{}
	ix, err := sh.index()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range ix.Keys() {
		t.Run(key, func(t *testing.T) {
			out, errOut, code := run(t, "", append(strings.Fields(ix.Name(key)), "-h")...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			testutil.Golden(t, filepath.Join("testdata", "help/"+key+".golden"), out, *update)
		})
	}
}

func TestBothSpellings(t *testing.T) {
	a, _, ca := run(t, "", "bot-package", "generate", "--help")
	b, _, cb := run(t, "", "bot-package-generate", "--help")
	if ca != 0 || cb != 0 || a != b {
		t.Fatalf("spellings differ: %d %d\n%s\n%s", ca, cb, a, b)
	}
}

func TestUnknownCommand(t *testing.T) {
	tests := []struct{ argv, suggestion string }{
		{"chcksum --pipeline x", "client checksum"},
		{"bot-pakage generate", "client bot-package generate"},
		{"bot-package generat", "client bot-package generate"},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, "", strings.Fields(tt.argv)...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2", tt.argv, code)
		}
		if !strings.Contains(errOut, "unknown command") || !strings.Contains(errOut, tt.suggestion) {
			t.Errorf("%s: stderr %q lacks %q", tt.argv, errOut, tt.suggestion)
		}
	}
	_, errOut, code := run(t, "", "--bogus")
	if code != 2 || !strings.Contains(errOut, "unknown option --bogus") {
		t.Errorf("unknown option: %d %q", code, errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		argv, want string
	}{
		{"checksum", "error: missing required flag --pipeline"},
		{"checksum --pipeline", "error: flag --pipeline needs a value"},
		{"checksum --pipline p.json", "did you mean --pipeline?"},
		{"bot-package generate --namespace n --name x --output_dir d --bots 0", "error: --bots must be 1 or more"},
		{"bot-package generate --namespace n --name x --output_dir d --version v1", "error: --version must be dotted numbers"},
		{"bot-package generate --namespace n --name x --output_dir d --bots many", `error: --bots: "many" is not an integer`},
		{"run --name x --file y", "error: --name and --file cannot be used together"},
		{"run-get-output --name x --file y", "error: --name and --file cannot be used together"},
		{"project use", "error: one of --name or --default is required"},
		{"project use --name p --default", "error: --name and --default cannot be used together"},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, "", strings.Fields(tt.argv)...)
		if code != 2 || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "usage: client ") {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q with usage", tt.argv, code, errOut, tt.want)
		}
	}
}

func TestScriptsAndArguments(t *testing.T) {
	dir := t.TempDir()
	script := write(t, dir, "args.star", "#!/usr/bin/env -S client run\nprint(sys.argv)\n")
	for _, argv := range [][]string{{"run", script, "a", "--b"}, {script, "a", "--b"}} {
		out, errOut, code := run(t, "", argv...)
		want := `["` + script + `", "a", "--b"]`
		if code != 0 || strings.TrimSpace(out) != want {
			t.Errorf("%v: %q %q %d, want %s", argv, out, errOut, code, want)
		}
	}
	out, _, code := run(t, "", "-c", "print(sys.argv[1:], 1 + 2)", "x")
	if code != 0 || out != "[\"x\"] 3\n" {
		t.Errorf("-c: %q %d", out, code)
	}
	out, _, code = run(t, "x = [i * i for i in range(4)]\nprint(x)\n")
	if code != 0 || out != "[0, 1, 4, 9]\n" {
		t.Errorf("stdin script: %q %d", out, code)
	}
	_, _, code = run(t, "", "-c", "sys.exit(3)")
	if code != 3 {
		t.Errorf("sys.exit(3) exits %d", code)
	}
	_, errOut, code := run(t, "", "run", filepath.Join(dir, "missing.star"))
	if code != 1 || !strings.Contains(errOut, "cannot read script") {
		t.Errorf("missing script: %d %q", code, errOut)
	}
}

func TestDialect(t *testing.T) {
	src := `
n = 0
while n < 3:
    n += 1
n = n * 10
def fact(k):
    return 1 if k <= 1 else k * fact(k - 1)
s = set([1, 2, 2])
if len(s) == 2:
    print(n, fact(5), sorted(s))
`
	out, errOut, code := run(t, src)
	if code != 0 || out != "30 120 [1, 2]\n" {
		t.Fatalf("%q %q %d", out, errOut, code)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "lib/util.star", "load('helper.star', 'twice')\ndef quad(x):\n    return twice(twice(x))\n")
	write(t, dir, "lib/helper.star", "calls = []\ndef twice(x):\n    return 2 * x\n")
	main := write(t, dir, "main.star", "load('lib/util.star', 'quad')\nload('@fabric//lib/prompt.star', 'one_of')\nprint(quad(3), one_of('a', 'b')('c'))\n")
	out, errOut, code := run(t, "", "run", main)
	if code != 0 || out != "12 answer one of: a, b\n" {
		t.Fatalf("relative and bundled load: %q %q %d", out, errOut, code)
	}
	write(t, dir, "a.star", "load('b.star', 'b')\na = 1\n")
	write(t, dir, "b.star", "load('a.star', 'a')\nb = 1\n")
	cyc := write(t, dir, "cycle.star", "load('a.star', 'a')\n")
	_, errOut, code = run(t, "", "run", cyc)
	if code != 1 || !strings.Contains(errOut, "load cycle: "+filepath.Join(dir, "a.star")+" -> "+filepath.Join(dir, "b.star")+" -> "+filepath.Join(dir, "a.star")) {
		t.Fatalf("cycle: %d %q", code, errOut)
	}
	_, errOut, code = run(t, "", "-c", "load('@fabric//nope.star', 'x')")
	if code != 1 || !strings.Contains(errOut, "no bundled module @fabric//nope.star") {
		t.Fatalf("missing bundled: %d %q", code, errOut)
	}
}

func TestTry(t *testing.T) {
	src := `
def boom(x, sep = "-"):
    fail("bad", x, sep = sep)
print(try_(boom, 1, sep = "+"))
print(try_(lambda: 42))
print(try_(file.read, "/no/such/file")[1])
`
	out, errOut, code := run(t, src)
	want := "(None, \"bad+1\")\n(42, None)\nfile.read: open /no/such/file: no such file or directory\n"
	if code != 0 || out != want {
		t.Fatalf("%q %q %d, want %q", out, errOut, code, want)
	}
}

func TestBacktrace(t *testing.T) {
	dir := t.TempDir()
	script := write(t, dir, "bt.star", "def inner(x):\n    return x[5]\n\ndef outer():\n    return inner([1])\n\nouter()\n")
	_, errOut, code := run(t, "", "run", script)
	for _, want := range []string{"Traceback", script + ":7:6: in <toplevel>", script + ":5:17: in outer", script + ":2:13: in inner", "index 5 out of range"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("backtrace lacks %q:\n%s", want, errOut)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	// A builtin's error names the call once.
	_, errOut, _ = run(t, "", "-c", `file.read("/no/such/file")`)
	if !strings.Contains(errOut, "Error in file.read: open /no/such/file") || strings.Contains(errOut, "file.read: file.read") {
		t.Errorf("builtin error:\n%s", errOut)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.star", "load('lib.star', 'f')\nprint(f(json.encode(1)))\n")
	write(t, dir, "lib.star", "def f(x):\n    return x\n")
	if _, errOut, code := run(t, "", "--check", good); code != 0 || errOut != "" {
		t.Fatalf("good: %d %q", code, errOut)
	}
	bad := write(t, dir, "bad.star", "print(undefined_name)\nload('nope.star', 'g')\n")
	_, errOut, code := run(t, "", "--check", bad)
	if code != 1 || !strings.Contains(errOut, bad+":1:7: undefined: undefined_name") || !strings.Contains(errOut, "no such file") {
		t.Fatalf("bad: %d %q", code, errOut)
	}
	syn := write(t, dir, "syn.star", "def f(:\n")
	if _, errOut, code := run(t, "", "--check", syn); code != 1 || !strings.Contains(errOut, syn+":1:8: got ':', want ')'") {
		t.Fatalf("syntax: %d %q", code, errOut)
	}
}

func TestUserScripts(t *testing.T) {
	home := t.TempDir()
	t.Setenv("FABRIC_HOME", home)
	write(t, home, "scripts/mine.star", `
def _hello(args):
    print("hello", args.who, args.times)
command("hello world", _hello, help = "Say hello.", flags = [
    flag("who", str, default = "you"),
    flag("times", int, default = 1),
])
def _mine(args):
    print("user checksum")
command("checksum", _mine, flags = [flag("pipeline", str)])
`)
	out, errOut, code := run(t, "", "hello-world", "--who=me", "--times", "2")
	if code != 0 || out != "hello me 2\n" {
		t.Fatalf("user command: %q %q %d", out, errOut, code)
	}
	if out, _, _ := run(t, "", "checksum"); out != "user checksum\n" {
		t.Fatalf("user script must override the bundled command: %q", out)
	}
}

func TestCommandFailureIsOneLine(t *testing.T) {
	_, errOut, code := run(t, "", "checksum", "--pipeline", "/no/such.json")
	if code != 1 || errOut != "error: cannot read the pipeline: open /no/such.json: no such file or directory\n" {
		t.Fatalf("%d %q", code, errOut)
	}
}

// TestIndexMatchesDeclarations runs every bundled script and checks that
// the textual index names exactly the commands the scripts declare.
func TestIndexMatchesDeclarations(t *testing.T) {
	sh := &shell{io: &host.IO{Stdout: io.Discard, Stderr: io.Discard}}
	ix, err := command.NewIndex(scripts.FS, "")
	if err != nil {
		t.Fatal(err)
	}
	rt := sh.newRuntime(nil)
	files, _ := fs.Glob(scripts.FS, "*.star")
	for _, f := range files {
		if _, err := rt.ExecBundled(rt.NewThread(f), f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	var declared []string
	for _, c := range rt.Commands.All() {
		declared = append(declared, c.Key())
		if src, _ := ix.Find(c.Key()); src.Path != strings.TrimPrefix(c.File, "@fabric//") {
			t.Errorf("%s is declared in %s but indexed in %s", c.Name, c.File, src.Path)
		}
	}
	sort.Strings(declared)
	if strings.Join(declared, " ") != strings.Join(ix.Keys(), " ") {
		t.Fatalf("declared %q, indexed %q", declared, ix.Keys())
	}
}

// TestOneScriptPerCommand shows that a command runs without the other
// scripts being executed: a broken user script does not stop it.
func TestOneScriptPerCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("FABRIC_HOME", home)
	write(t, home, "scripts/broken.star", "command('broken', lambda args: None)\nthis is not starlark\n")
	if out, errOut, code := run(t, "", "checksum", "-h"); code != 0 || !strings.HasPrefix(out, "usage:") {
		t.Fatalf("checksum -h with a broken neighbour: %d %q", code, errOut)
	}
	_, errOut, code := run(t, "", "broken")
	if code != 1 || !strings.Contains(errOut, "broken.star:2:8: got is, want newline") {
		t.Fatalf("the broken script itself reports its error: %d %q", code, errOut)
	}
}
