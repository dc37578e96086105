package stdlib

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// dialect is the shell's Starlark dialect.
var dialect = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}

// result is what a script printed and how it ended.
type result struct {
	stdout, stderr string
	err            error
}

// run executes src with the standard modules, sys, input and emit(s)
// (print without a newline) predeclared,
// stdin as its input and dir as its working directory.
func run(t *testing.T, src, stdin, dir string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	thread := &starlark.Thread{
		Name:  "test",
		Print: func(_ *starlark.Thread, msg string) { stdout.WriteString(msg + "\n") },
	}
	host.Set(thread, &host.IO{
		Stdin:   strings.NewReader(stdin),
		Stdout:  &stdout,
		Stderr:  &stderr,
		Dir:     dir,
		NoColor: true,
		Argv:    []string{"script.star", "a", "b"},
	})
	predeclared := Modules()
	predeclared["sys"] = SysModule([]string{"script.star", "a", "b"})
	predeclared["input"] = InputBuiltin()
	predeclared["emit"] = starlark.NewBuiltin("emit", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		s, _ := starlark.AsString(args[0])
		stdout.WriteString(s)
		return starlark.None, nil
	})
	_, err := starlark.ExecFileOptions(dialect, thread, "test.star", src, predeclared)
	return result{stdout.String(), stderr.String(), err}
}

// testCase is a script, what it should print, or the error it should fail
// with (a substring of the message).
type testCase struct {
	name    string
	src     string
	want    string
	wantErr string
}

// runCases runs table-driven cases in dir (may be "").
func runCases(t *testing.T, dir string, cases []testCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.src, "", dir)
			check(t, r, tc.want, tc.wantErr)
		})
	}
}

func check(t *testing.T, r result, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if r.err == nil {
			t.Fatalf("no error, want %q; stdout:\n%s", wantErr, r.stdout)
		}
		if !strings.Contains(r.err.Error(), wantErr) {
			t.Fatalf("error %q, want it to contain %q", r.err, wantErr)
		}
		return
	}
	if r.err != nil {
		t.Fatalf("error: %v", r.err)
	}
	if r.stdout != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
}
