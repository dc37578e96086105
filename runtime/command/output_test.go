package command

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/out"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// declare runs a script that declares commands and returns the registry.
func declare(t *testing.T, src string) (*Registry, error) {
	t.Helper()
	r := NewRegistry()
	thread := &starlark.Thread{}
	Attach(thread, r)
	predeclared := Builtins()
	predeclared["out"] = out.Module()
	_, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, "test.star", src, predeclared)
	return r, err
}

func TestOutputDeclaration(t *testing.T) {
	for _, tc := range []struct {
		name, output, flags string
		want                []string // the flags after the declaration: name=help
		exclusive           string
		err                 string
	}{
		{name: "none", want: nil},
		{name: "table and json", output: `["table", "json"]`,
			want: []string{"json=Print JSON instead of a table."}},
		{name: "after the declared flags", output: `["table", "json"]`, flags: `[flag("all", bool, help = "All.")]`,
			want: []string{"all=All.", "json=Print JSON instead of a table."}},
		{name: "json and yaml exclusive", output: `["table", "json", "yaml"]`,
			want:      []string{"json=Print JSON instead of a table.", "yaml=Print YAML instead of a table."},
			exclusive: "[[json yaml]]"},
		{name: "yaml default", output: `["yaml", "json"]`, want: []string{"json=Print JSON instead of YAML."}},
		{name: "text default", output: `["text", "json"]`, want: []string{"json=Print JSON instead of text."}},
		{name: "json default", output: `["json", "yaml"]`, want: []string{"yaml=Print YAML instead of JSON."}},
		{name: "only a default", output: `["table"]`,
			err: `command "x list": output lists the default format, then the ones --json or --yaml select; got only "table"`},
		{name: "unknown default", output: `["html", "json"]`,
			err: `command "x list": output's default format "html" is not one of json, table, text, yaml`},
		{name: "unflagged format", output: `["table", "csv"]`,
			err: `command "x list": output format "csv" is not one a flag selects (json, yaml)`},
		{name: "table is no flag", output: `["json", "table"]`,
			err: `command "x list": output format "table" is not one a flag selects (json, yaml)`},
		{name: "twice", output: `["table", "json", "json"]`, err: `command "x list": output lists "json" twice`},
		{name: "default twice", output: `["json", "json"]`, err: `command "x list": output lists "json" twice`},
		{name: "not strings", output: `["table", 1]`, err: `command "x list": output[1] must be a string`},
		{name: "by hand too", output: `["table", "json"]`, flags: `[flag("json", bool, help = "Print JSON.")]`,
			err: `command "x list": flag "json" is declared by output; remove its flag(...)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `command("x list", lambda args: None`
			if tc.output != "" {
				src += `, output = ` + tc.output
			}
			if tc.flags != "" {
				src += `, flags = ` + tc.flags
			}
			r, err := declare(t, src+")")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := r.Get("x-list")
			var got []string
			for _, f := range c.Flags {
				if f.Kind != Bool {
					t.Errorf("--%s is a %s flag, want bool", f.Name, f.Kind)
				}
				got = append(got, f.Name+"="+f.Help)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("flags:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if ex := fmtGroups(c.Exclusive); ex != tc.exclusive {
				t.Errorf("exclusive %s, want %s", ex, tc.exclusive)
			}
			if tc.output != "" && len(c.Output) == 0 {
				t.Error("Output not recorded")
			}
		})
	}
}

func fmtGroups(g [][]string) string {
	if len(g) == 0 {
		return ""
	}
	var parts []string
	for _, x := range g {
		parts = append(parts, "["+strings.Join(x, " ")+"]")
	}
	return "[" + strings.Join(parts, "") + "]"
}

// TestOutputFlagsAndWriter runs a declared command's flags through Parse
// and the parsed args through out.write.
func TestOutputFlagsAndWriter(t *testing.T) {
	r, err := declare(t, `
def _list(args):
    out.write(args, [{"name": "a", "size": 1}], columns = ["name"])

command("x list", _list, output = ["table", "json", "yaml"])
`)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Get("x-list")
	for _, tc := range []struct {
		argv, stdout, err string
	}{
		{argv: "", stdout: "name\n----\na\n"},
		{argv: "--json", stdout: "[\n  {\n    \"name\": \"a\",\n    \"size\": 1\n  }\n]\n"},
		{argv: "--yaml", stdout: "- name: a\n  size: 1\n"},
		{argv: "--json=false", stdout: "name\n----\na\n"},
		{argv: "--json --yaml", err: "--json and --yaml cannot be used together"},
	} {
		t.Run(tc.argv, func(t *testing.T) {
			p, err := Parse(c, strings.Fields(tc.argv))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			thread := &starlark.Thread{}
			host.Set(thread, &host.IO{Stdout: &stdout, NoColor: true})
			if _, err := starlark.Call(thread, c.Fn, starlark.Tuple{p.Args}, nil); err != nil {
				t.Fatal(err)
			}
			if stdout.String() != tc.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.stdout)
			}
		})
	}
	help := Help("client", c)
	for _, want := range []string{"--json      Print JSON instead of a table.", "--yaml      Print YAML instead of a table.", "Only one of --json or --yaml may be given."} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}
