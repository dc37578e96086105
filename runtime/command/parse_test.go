package command

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// testCommand declares flags of every kind, as scripts do.
func testCommand() *Command {
	c := &Command{
		Name: "library list",
		Flags: []*Flag{
			{Name: "pod-type", Kind: String, Required: true},
			{Name: "pod-ids", Kind: String, Nargs: "+"},
			{Name: "site", Kind: String},
			{Name: "group", Kind: String, DeprecatedFor: "site"},
			{Name: "wait", Kind: Int, Default: starlark.MakeInt(30)},
			{Name: "ratio", Kind: Float},
			{Name: "json", Kind: Bool},
			{Name: "to_dir", Kind: String},
			{Name: "format", Kind: String, Choices: []string{"csv", "json", "parquet", "auto"}, Default: starlark.String("auto")},
			{Name: "old-json", Kind: Bool, DeprecatedFor: "format=json"},
			{Name: "infra", Kind: Bool},
			{Name: "apps", Kind: Bool},
		},
		Exclusive: [][]string{{"infra", "apps"}},
		OneOf:     [][]string{{"pod-ids", "site"}},
	}
	if err := c.validate(); err != nil {
		panic(err)
	}
	return c
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		argv string
		want map[string]string // attr -> repr
		warn string
		err  string
	}{
		{name: "space and equals", argv: "--pod-type worker --site=s1",
			want: map[string]string{"pod_type": `"worker"`, "site": `"s1"`, "wait": "30", "json": "False", "pod_ids": "[]", "format": `"auto"`}},
		{name: "repeated values", argv: "--pod-type worker --pod-ids a b c --json",
			want: map[string]string{"pod_ids": `["a", "b", "c"]`, "json": "True"}},
		{name: "repeated flag appends", argv: "--pod-type w --pod-ids a --pod-ids=b",
			want: map[string]string{"pod_ids": `["a", "b"]`}},
		{name: "underscore twin", argv: "--pod_type w --site s --to-dir /x",
			want: map[string]string{"pod_type": `"w"`, "to_dir": `"/x"`}},
		{name: "hyphen twin", argv: "--pod-type w --site s --to_dir /y",
			want: map[string]string{"to_dir": `"/y"`}},
		{name: "int and float", argv: "--pod-type w --site s --wait 5 --ratio -0.5",
			want: map[string]string{"wait": "5", "ratio": "-0.5"}},
		{name: "bool with value", argv: "--pod-type w --site s --json=false",
			want: map[string]string{"json": "False"}},
		{name: "deprecated alias", argv: "--pod-type w --group g1",
			want: map[string]string{"site": `"g1"`}, warn: "--group is deprecated, use --site"},
		{name: "deprecated for value", argv: "--pod-type w --site s --old-json",
			want: map[string]string{"format": `"json"`}, warn: "--old-json is deprecated, use --format json"},
		{name: "last value wins", argv: "--pod-type a --pod-type b --site s",
			want: map[string]string{"pod_type": `"b"`}},
		{name: "missing required", argv: "--site s", err: "missing required flag --pod-type"},
		{name: "missing value", argv: "--pod-type", err: "flag --pod-type needs a value"},
		{name: "value before a flag is missing", argv: "--site --pod-type w", err: "flag --site needs a value"},
		{name: "relative time value", argv: "--pod-type w --site -15m",
			want: map[string]string{"site": `"-15m"`}},
		{name: "dashed value", argv: "--pod-type -1h --site s",
			want: map[string]string{"pod_type": `"-1h"`}},
		{name: "dashed value with equals", argv: "--pod-type=-x --site s",
			want: map[string]string{"pod_type": `"-x"`}},
		{name: "unknown flag suggests", argv: "--pod-typ w", err: "unknown flag --pod-typ (did you mean --pod-type?)"},
		{name: "single dash word", argv: "-json", err: "unknown flag -json (long flags take two dashes)"},
		{name: "bad int", argv: "--pod-type w --site s --wait soon", err: `--wait: "soon" is not an integer`},
		{name: "bad float", argv: "--pod-type w --site s --ratio x", err: `--ratio: "x" is not a number`},
		{name: "bad choice", argv: "--pod-type w --site s --format xml", err: `--format: "xml" is not one of csv, json, parquet, auto`},
		{name: "exclusive", argv: "--pod-type w --site s --infra --apps", err: "--infra and --apps cannot be used together"},
		{name: "exclusive false ok", argv: "--pod-type w --site s --infra --apps=false", want: map[string]string{"infra": "True", "apps": "False"}},
		{name: "one of required", argv: "--pod-type w", err: "one of --pod-ids or --site is required"},
		{name: "nargs needs one", argv: "--pod-type w --pod-ids --json", err: "flag --pod-ids needs at least one value"},
		{name: "stray positional", argv: "--pod-type w --site s extra", err: `unexpected argument "extra"`},
		{name: "deprecated with new", argv: "--pod-type w --site s --group g", err: "--group is deprecated for --site; give only --site"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(testCommand(), strings.Fields(tt.argv))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				if _, ok := err.(*UsageError); !ok {
					t.Fatalf("error is %T, want *UsageError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for attr, want := range tt.want {
				v, err := p.Args.Attr(attr)
				if err != nil {
					t.Fatalf("args.%s: %v", attr, err)
				}
				if v.String() != want {
					t.Errorf("args.%s = %s, want %s", attr, v, want)
				}
			}
			if tt.warn != "" && (len(p.Warnings) != 1 || p.Warnings[0] != tt.warn) {
				t.Errorf("warnings = %q, want %q", p.Warnings, tt.warn)
			}
		})
	}
}

func TestParseHelpAndPositionals(t *testing.T) {
	c := &Command{Name: "graphdb insert-nodes", Flags: []*Flag{
		{Name: "collection_name", Positional: true},
		{Name: "file_path", Positional: true},
		{Name: "database", Required: true},
		{Name: "rest", Positional: true, Nargs: "*"},
	}}
	if p, err := Parse(c, []string{"--database", "-h"}); err != nil || !p.Help {
		t.Fatalf("-h anywhere must ask for help: %v %v", p, err)
	}
	if p, _ := Parse(c, []string{"--", "-h"}); p != nil && p.Help {
		t.Fatal("-h after -- is a value")
	}
	p, err := Parse(c, []string{"nodes", "--database", "db", "n.csv", "x", "--", "--y"})
	if err != nil {
		t.Fatal(err)
	}
	for attr, want := range map[string]string{"collection_name": `"nodes"`, "file_path": `"n.csv"`, "rest": `["x", "--y"]`} {
		if v, _ := p.Args.Attr(attr); v.String() != want {
			t.Errorf("%s = %s, want %s", attr, v, want)
		}
	}
	if _, err := Parse(c, []string{"nodes", "--database", "db"}); err == nil || err.Error() != "missing argument FILE_PATH" {
		t.Fatalf("missing positional: %v", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		cmd  *Command
		want string
	}{
		{&Command{Name: "x", Flags: []*Flag{{Name: "a"}, {Name: "a"}}}, `flag "a" declared twice`},
		{&Command{Name: "x", Flags: []*Flag{{Name: "a_b"}, {Name: "a-b"}}}, `flag "a-b" declared twice`},
		{&Command{Name: "x", Flags: []*Flag{{Name: "help"}}}, `flag "help" is reserved`},
		{&Command{Name: "x", Flags: []*Flag{{Name: "g", DeprecatedFor: "site"}}}, `deprecated for unknown flag "site"`},
		{&Command{Name: "x", Flags: []*Flag{{Name: "a"}}, Exclusive: [][]string{{"a", "b"}}}, `unknown flag "b"`},
		{&Command{Name: " "}, "command name is empty"},
	}
	for _, tt := range tests {
		err := tt.cmd.validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.cmd, err, tt.want)
		}
	}
}

func TestResolveAndSuggest(t *testing.T) {
	ix := &Index{entries: map[string]Source{}, names: map[string]string{}}
	ix.add([]byte("command(\"dataset list\", f)\n  command('bot-package generate', g)\ncommand(\"pods\", h)\n"), Source{Path: "x.star"})
	tests := []struct {
		argv string
		key  string
		n    int
	}{
		{"dataset list --json", "dataset-list", 2},
		{"dataset-list --json", "dataset-list", 1},
		{"bot-package generate --name x", "bot-package-generate", 2},
		{"bot-package-generate", "bot-package-generate", 1},
		{"pods --json", "pods", 1},
		{"pods extra", "pods", 1},
	}
	for _, tt := range tests {
		key, n, ok := ix.Resolve(strings.Fields(tt.argv))
		if !ok || key != tt.key || n != tt.n {
			t.Errorf("Resolve(%q) = %q %d %v, want %q %d", tt.argv, key, n, ok, tt.key, tt.n)
		}
	}
	if _, _, ok := ix.Resolve([]string{"datset", "list"}); ok {
		t.Error("a typo must not resolve")
	}
	if got := ix.Suggest([]string{"datset", "list"}); len(got) == 0 || got[0] != "dataset list" {
		t.Errorf("Suggest = %q, want dataset list first", got)
	}
	if got := ix.Suggest([]string{"pod"}); len(got) == 0 || got[0] != "pods" {
		t.Errorf("Suggest(pod) = %q", got)
	}
}

func TestDeclared(t *testing.T) {
	src := "command(\n    \"a b\",\n    f,\n)\n# command(\"commented\")\nx = command\n  command(name = \"c\", fn = f)\n"
	got := Declared([]byte(src))
	if strings.Join(got, ",") != "a b,c" {
		t.Errorf("Declared = %q", got)
	}
}

// FuzzParse checks that no command line makes the parser panic, and that
// what it accepts satisfies the declaration.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"--pod-type w --site s", "--pod-ids a b --json=yes", "-h", "--", "--wait=-1 --ratio 1e3", "--format", "x -- --y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		p, err := Parse(testCommand(), strings.Split(line, " "))
		if err != nil {
			if _, ok := err.(*UsageError); !ok {
				t.Fatalf("error %T is not a usage error", err)
			}
			return
		}
		if p.Help {
			return
		}
		if v, _ := p.Args.Attr("pod_type"); v == starlark.None {
			t.Fatal("required flag missing from a successful parse")
		}
	})
}

// FuzzDeclared checks that the index scanner never panics and finds what it
// is shown.
func FuzzDeclared(f *testing.F) {
	f.Add("command(\"a b\", f)\n")
	f.Add("  command(name = 'x'")
	f.Add("command(")
	f.Fuzz(func(t *testing.T, src string) {
		for _, name := range Declared([]byte(src)) {
			if name == "" || strings.ContainsAny(name, "\"'\n") {
				t.Fatalf("bad name %q from %q", name, src)
			}
		}
	})
}
