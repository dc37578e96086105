package repl

import (
	"bytes"
	"go.starlark.net/starlark"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/runtime"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/stdlib"
)

// typed is a LineReader of scripted input: each burst is what arrives at
// once (a typed line is a burst of one; a paste is a burst of many).
type typed struct {
	bursts  [][]string
	prompts []string
}

func (r *typed) ReadLine(prompt string) (string, error) {
	r.prompts = append(r.prompts, prompt)
	for len(r.bursts) > 0 && len(r.bursts[0]) == 0 {
		r.bursts = r.bursts[1:]
	}
	if len(r.bursts) == 0 {
		return "", io.EOF
	}
	line := r.bursts[0][0]
	r.bursts[0] = r.bursts[0][1:]
	if line == "^C" {
		return "", ErrInterrupt
	}
	return line, nil
}

func (r *typed) Pending(time.Duration) bool { return len(r.bursts) > 0 && len(r.bursts[0]) > 0 }

// lines makes each line its own burst, as typing does.
func lines(ls ...string) [][]string {
	var b [][]string
	for _, l := range ls {
		b = append(b, []string{l})
	}
	return b
}

func session(t *testing.T) (*Session, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	rt := runtime.New(runtime.Options{
		IO:          &host.IO{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, NoColor: true},
		Predeclared: stdlib.Modules(),
	})
	s := NewSession(rt)
	s.Interrupts = make(chan os.Signal) // never: keep the process's SIGINT alone
	return s, &stdout, &stderr
}

func TestChunks(t *testing.T) {
	tests := []struct {
		name   string
		bursts [][]string
		want   []string
	}{
		{"simple", lines("x = 1", "x + 1"), []string{"x = 1", "x + 1"}},
		{"multi-line def", lines("def f(x):", "    y = x * 2", "    return y", "", "f(2)"),
			[]string{"def f(x):\n    y = x * 2\n    return y", "f(2)"}},
		{"open bracket", lines("d = {", "  'a': 1,", "}"), []string{"d = {\n  'a': 1,\n}"}},
		{"typed blank ends block", lines("if True:", "    a = 1", "", "    b = 2"),
			[]string{"if True:\n    a = 1", "    b = 2"}},
		{"pasted block with blank lines", [][]string{{"def g():", "    a = 1", "", "", "    return a", "", "g()"}},
			[]string{"def g():\n    a = 1\n\n\n    return a", "g()"}},
		{"pasted else after blank", [][]string{{"if False:", "    r = 1", "", "else:", "    r = 2", ""}},
			[]string{"if False:\n    r = 1\n\nelse:\n    r = 2"}},
		{"command line", lines(":checksum --pipeline p.json"), []string{":checksum --pipeline p.json"}},
		{"interrupt drops the block", lines("def h():", "^C", "1"), []string{"1"}},
		{"end of input runs the block", lines("for i in []:", "    pass"), []string{"for i in []:\n    pass"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &typed{bursts: tt.bursts}
			var c chunker
			var got []string
			for {
				src, err := c.next(r)
				if err == ErrInterrupt {
					continue
				}
				if err != nil {
					break
				}
				got = append(got, src)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("chunks = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPrompts(t *testing.T) {
	r := &typed{bursts: lines("def f():", "    pass", "", "1")}
	s, _, _ := session(t)
	s.Run(r)
	want := []string{Prompt, MorePrompt, MorePrompt, Prompt, Prompt}
	if strings.Join(r.prompts, "|") != strings.Join(want, "|") {
		t.Errorf("prompts = %q, want %q", r.prompts, want)
	}
}

func TestSession(t *testing.T) {
	s, stdout, stderr := session(t)
	input := lines(
		"def double(x):",
		"    return x * 2",
		"",
		"double(21)",
		"_ + 1",
		"1 // 0",
		"y = _",
		"y",
		"[i for i in range(30)]",
		"None",
		"print('printed')",
	)
	code := s.Run(&typed{bursts: input})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	wantOut := "42\n43\n43\n[\n    0, 1, 2, 3,"
	if !strings.HasPrefix(stdout.String(), wantOut) {
		t.Errorf("stdout = %q, want prefix %q", stdout.String(), wantOut)
	}
	if !strings.HasSuffix(stdout.String(), " 28, 29,\n]\nprinted\n") {
		t.Errorf("stdout = %q: long list not pretty-printed or print missing", stdout.String())
	}
	if !strings.Contains(stderr.String(), "<repl>:1:3: in <expr>") || !strings.Contains(stderr.String(), "floored division by zero") {
		t.Errorf("error backtrace missing: %q", stderr.String())
	}
}

func TestExitAndCommands(t *testing.T) {
	s, stdout, _ := session(t)
	var ran []string
	s.Command = func(line string) int { ran = append(ran, line); return 0 }
	code := s.Run(&typed{bursts: lines(":checksum --pipeline p.json", "exit(4)", "print('not reached')")})
	if code != 4 || len(ran) != 1 || ran[0] != "checksum --pipeline p.json" || stdout.Len() != 0 {
		t.Fatalf("code %d, ran %q, stdout %q", code, ran, stdout.String())
	}
}

func TestHelp(t *testing.T) {
	s, stdout, _ := session(t)
	s.Run(&typed{bursts: lines("help(json.encode)", "help(try_)", "def f(a, b = 1):", "    \"Adds.\"", "    return a + b", "", "help(f)", "help()")})
	out := stdout.String()
	for _, want := range []string{"json.encode(", "try_(fn, *args, **kwargs)", "def f(a, b = 1)\n\nAdds.", "Modules (help(name) lists their members):", "  json "} {
		if !strings.Contains(out, want) {
			t.Errorf("help output lacks %q:\n%s", want, out)
		}
	}
}

func TestInterrupt(t *testing.T) {
	s, _, stderr := session(t)
	ch := make(chan os.Signal, 1)
	s.Interrupts = ch
	go func() { time.Sleep(50 * time.Millisecond); ch <- os.Interrupt }()
	code, exit := s.Eval("while True:\n    pass")
	if exit || code != runtime.ExitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("code %d exit %v stderr %q", code, exit, stderr.String())
	}
	// The session goes on after an interrupt.
	if code, _ := s.Eval("x = 1"); code != 0 {
		t.Fatalf("after interrupt: %d %s", code, stderr.String())
	}
}

func TestCompletion(t *testing.T) {
	s, _, _ := session(t)
	s.Eval("my_value = {'a': 1}")
	s.Eval("def double(x):\n    return 2 * x")
	comp := &Completer{Names: func() starlark.StringDict { return s.Globals }, Commands: func() []string { return []string{"checksum", "bot-package generate"} }}
	tests := []struct {
		line string
		want []string
	}{
		{"json.enc", []string{"json.encode"}},
		{"x = json.dec", []string{"json.decode"}},
		{"my_v", []string{"my_value"}},
		{"whi", []string{"while"}},
		{"le", []string{"len"}},
		{"try", []string{"try_"}},
		{":che", []string{"checksum"}},
		{"nothing.at", nil},
		{"json.encode([1], ind", []string{"indent="}},
		{"json.encode([1], sort_keys = True, i", []string{"if", "in", "indent=", "int"}},
		{"double(x", []string{"x="}},
		{"double(f(1), x", []string{"x="}},
	}
	for _, tt := range tests {
		got := comp.Candidates(tt.line)
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("Candidates(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
	sfx, n := comp.Do([]rune("json.enc"), 8)
	if n != 3 || len(sfx) != 1 || string(sfx[0]) != "ode" {
		t.Errorf("Do = %q %d", sfx, n)
	}
}

// TestPredeclaredInStatements: a statement sees the predeclared names as
// an expression does (a REPL chunk is resolved against both), for every
// predeclared name, in assignments, in defs and in rc.star.
func TestPredeclaredInStatements(t *testing.T) {
	s, stdout, stderr := session(t)
	for name := range s.RT.Predeclared() {
		for _, src := range []string{"v = " + name, name, "v2 = [" + name + "]\nv2[0]"} {
			stderr.Reset()
			if code, _ := s.Eval(src); code != 0 || stderr.Len() > 0 {
				t.Errorf("%q: exit %d: %s", src, code, stderr)
			}
		}
	}
	stdout.Reset()
	for _, src := range []string{
		"x = json.encode([1])",
		"x",
		"def f():\n    return json.decode('[2]')",
		"y = f()",
		"y",
		"json = 'shadowed'",
		"json",
	} {
		if code, _ := s.Eval(src); code != 0 {
			t.Fatalf("%q: exit %d: %s", src, code, stderr)
		}
	}
	if want := "\"[1]\"\n[2]\n\"shadowed\"\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}

	rc := filepath.Join(t.TempDir(), "rc.star")
	if err := os.WriteFile(rc, []byte("from_rc = json.encode({'a': 1})\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, stdout, stderr = session(t)
	s.RunRC(rc)
	s.Eval("from_rc")
	if stderr.Len() > 0 || stdout.String() != "\"{\\\"a\\\":1}\"\n" {
		t.Errorf("rc.star: stdout %q stderr %q", stdout, stderr)
	}
}

// TestDir: dir() lists the names in scope, predeclared and defined in the
// session; dir(x) is still Starlark's.
func TestDir(t *testing.T) {
	s, stdout, stderr := session(t)
	s.Eval("mine = 1")
	s.Eval("names = dir()")
	for name := range s.RT.Predeclared() {
		stdout.Reset()
		if s.Eval("'" + name + "' in names"); stdout.String() != "True\n" {
			t.Errorf("dir() lacks %s", name)
		}
	}
	stdout.Reset()
	s.Eval("'mine' in names")
	s.Eval("'encode' in dir(json)")
	if stdout.String() != "True\nTrue\n" || stderr.Len() > 0 {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
}
