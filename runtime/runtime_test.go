package runtime

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fabricops/fabric/runtime/host"
)

func TestResolve(t *testing.T) {
	rt := New(Options{})
	tests := []struct{ from, name, want, err string }{
		{"", "@fabric//lib/x.star", "@fabric//lib/x.star", ""},
		{"@fabric//dataset.star", "lib/x.star", "@fabric//lib/x.star", ""},
		{"@fabric//lib/a.star", "b.star", "@fabric//lib/b.star", ""},
		{"/w/main.star", "lib/u.star", "/w/lib/u.star", ""},
		{"rel/main.star", "../u.star", "u.star", ""},
		{"<repl>", "u.star", "u.star", ""},
		{"", "/abs/u.star", "/abs/u.star", ""},
		{"", "@fabric//../x.star", "", "outside the bundled scripts"},
		{"", "@other//x.star", "", "unknown repository"},
		{"", "", "", "empty module name"},
	}
	for _, tt := range tests {
		got, err := rt.Resolve(tt.from, tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Resolve(%q, %q) error = %v, want %q", tt.from, tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tt.from, tt.name, got, err, tt.want)
		}
	}
}

func TestMessageAndExitCode(t *testing.T) {
	bundle := fstest.MapFS{"lib/m.star": {Data: []byte("x = 1\n")}}
	var out bytes.Buffer
	rt := New(Options{IO: &host.IO{Stdout: &out, Stderr: &out}, Bundle: bundle})
	tests := []struct {
		src, msg string
		code     int
	}{
		{`fail("no dataset named", repr("sales"))`, `no dataset named "sales"`, ExitFailure},
		{`usage_error("--sample must be > 0")`, "--sample must be > 0", ExitUsage},
		{`exit(7)`, "exit status 7", 7},
		{`len(1)`, "len: value of type int has no len", ExitFailure},
		{`load("@fabric//lib/m.star", "y")`, "load: name y not found in module @fabric//lib/m.star", ExitFailure},
		{`try_(1)`, "try_: int is not callable", ExitFailure},
	}
	for _, tt := range tests {
		thread := rt.NewThread("t")
		_, err := rt.ExecFile(thread, "t.star", tt.src)
		if err == nil {
			t.Fatalf("%s: no error", tt.src)
		}
		if got := Message(err); got != tt.msg {
			t.Errorf("Message(%s) = %q, want %q", tt.src, got, tt.msg)
		}
		if got := ExitCode(thread, err); got != tt.code {
			t.Errorf("ExitCode(%s) = %d, want %d", tt.src, got, tt.code)
		}
	}
}
