package command

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/fabricops/fabric/internal/testutil"
	"go.starlark.net/starlark"
)

func TestFlagCompletes(t *testing.T) {
	tests := []struct {
		flag Flag
		want Value
	}{
		{Flag{Name: "format", Choices: []string{"csv", "json"}}, Value{Kind: ChoiceValue, Choices: []string{"csv", "json"}}},
		{Flag{Name: "json", Kind: Bool}, Value{}},
		{Flag{Name: "rows", Kind: Int}, Value{}},
		{Flag{Name: "name"}, Value{}},
		{Flag{Name: "folder"}, Value{}},
		{Flag{Name: "schema", Metavar: "SCHEMA_NAME"}, Value{}},
		{Flag{Name: "pipeline", Metavar: "FILE"}, Value{Kind: FileValue}},
		{Flag{Name: "file", Metavar: "FILE_OR_URL"}, Value{Kind: FileValue}},
		{Flag{Name: "copy", Metavar: "ZIP_OR_URL"}, Value{Kind: FileValue}},
		{Flag{Name: "to", Metavar: "PARQUET"}, Value{Kind: FileValue}},
		{Flag{Name: "data", Metavar: "CSV"}, Value{Kind: FileValue}},
		{Flag{Name: "where", Metavar: "DIR"}, Value{Kind: DirValue}},
		{Flag{Name: "where", Metavar: "OUTPUT_DIR"}, Value{Kind: DirValue}},
		{Flag{Name: "file"}, Value{Kind: FileValue}},
		{Flag{Name: "tofile"}, Value{Kind: FileValue}},
		{Flag{Name: "outfile", Metavar: "OUT"}, Value{Kind: FileValue}},
		{Flag{Name: "config-path"}, Value{Kind: FileValue}},
		{Flag{Name: "from"}, Value{Kind: FileValue}},
		{Flag{Name: "to"}, Value{Kind: FileValue}},
		{Flag{Name: "out"}, Value{Kind: FileValue}},
		{Flag{Name: "dir"}, Value{Kind: DirValue}},
		{Flag{Name: "todir"}, Value{Kind: DirValue}},
		{Flag{Name: "output_dir"}, Value{Kind: DirValue}},
		{Flag{Name: "work-dir"}, Value{Kind: DirValue}},
		{Flag{Name: "profile"}, Value{}},
		{Flag{Name: "tone"}, Value{}},
		{Flag{Name: "input", Positional: true, Metavar: "FILE.star"}, Value{Kind: FileValue}},
	}
	for _, tt := range tests {
		if got := tt.flag.Completes(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("flag %q (metavar %q): Completes() = %+v, want %+v", tt.flag.Name, tt.flag.Metavar, got, tt.want)
		}
	}
}

// completionSpec declares commands of every shape: groups, a command that
// is also a group, a command that is also one of the program's words,
// positionals, repeated values and deprecated flags.
func completionSpec() CompletionSpec {
	lib := testCommand()
	cmds := []*Command{
		lib,
		{Name: "library get", Help: "Get a book.\nMore.", Flags: []*Flag{
			{Name: "name", Required: true, Help: "Book name."},
			{Name: "tofile", Metavar: "FILE", Help: "Write it [here]."},
			{Name: "todir", Metavar: "DIR"},
			{Name: "format", Choices: []string{"csv", "it's"}, Default: starlark.String("csv")},
			{Name: "json", Kind: Bool, DeprecatedFor: "format=csv"},
		}},
		{Name: "jobs", Help: "List the jobs.", Flags: []*Flag{{Name: "all", Kind: Bool}}},
		{Name: "jobs purge", Help: "Purge jobs."},
		{Name: "run", Help: "Start a pipeline.", Flags: []*Flag{{Name: "file", Metavar: "FILE"}}},
		{Name: "cat", Help: "Print files.", Flags: []*Flag{
			{Name: "mode", Positional: true, Choices: []string{"plain", "fancy"}},
			{Name: "files", Positional: true, Nargs: "+", Metavar: "FILE"},
			{Name: "n", Kind: Int},
		}},
	}
	star := Value{Kind: FileValue, Ext: ".star"}
	return CompletionSpec{Prog: "client", Commands: cmds, Words: []Word{
		{Name: "help", Help: "Show help.", First: Value{Kind: CommandValue}, Rest: Value{Kind: CommandValue}, Options: []string{"--markdown"}},
		{Name: "version", Help: "Print the version."},
		{Name: "run", Help: "Run a script.", First: star, Rest: Value{Kind: FileValue}},
		{Name: "completion", Help: "Completion.", First: Value{Kind: ChoiceValue, Choices: CompletionShells}},
		{Name: "--check", Help: "Check scripts.", First: star, Rest: star},
		{Name: "-c", Help: "Run code."},
		{Name: "--version", Help: "Print the version."},
	}}
}

func TestCompletionUnknownShell(t *testing.T) {
	if _, err := Completion("tcsh", completionSpec()); err == nil || !strings.Contains(err.Error(), `unknown shell "tcsh"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestCompletionScripts(t *testing.T) {
	tests := []struct {
		shell string
		want  []string
	}{
		{"bash", []string{
			"complete -F _client client\n",
			`'library') _client_add "$2" 'get' 'list' ;;`,
			`'library-get') _client_add "$2" '--name' '--tofile' '--todir' '--format' ;;`,
			`'--format') _client_add "$3" 'csv' 'it'\''s' ;;`,
			`'--tofile') _client_files "$3" ;;`,
			`'--todir') _client_dirs "$3" ;;`,
			`'--pod-ids') return 2 ;;`,
			`0) _client_add "$3" 'plain' 'fancy'; return 0 ;;`,
			`*) _client_files "$3"; return 0 ;;`,
			`_client_files "$cur" '.star'`,
		}},
		{"zsh", []string{
			"#compdef client\n",
			"compdef _client client\n",
			`'--name=[Book name.]:TEXT: '`,
			`'--tofile=[Write it (here).]:FILE:_files'`,
			`'--todir=[]:DIR:_files -/'`,
			`'--format=[]:format:(csv it\'\''s)'`,
			`'--json[Deprecated: use --format csv.]'`,
			`'(--apps)--infra[]'`,
			`'*--pod-ids=[]:TEXT: '`,
			`':mode:(plain fancy)'`,
			`'*:FILE:_files'`,
			`'(- *)'{-h,--help}'[Show this help.]'`,
			`'jobs:List the jobs.'`,
			`'library:commands: get, list'`,
			`_files -g '*.star'`,
		}},
		{"fish", []string{
			"complete -c client -f\n",
			`complete -c client -n '__client_is cmd:library-get' -l 'name' -x -d 'Book name.'`,
			`complete -c client -n '__client_is cmd:library-get' -l 'tofile' -r -F -d 'Write it [here].'`,
			`complete -c client -n '__client_is cmd:library-get' -l 'todir' -x -a '(__fish_complete_directories)'`,
			`complete -c client -n '__client_is cmd:library-get' -l 'format' -x -a 'csv it\\\'s'`,
			`complete -c client -n '__client_is cmd:library-list' -l 'json'`,
			`complete -c client -n '__client_is cmd:cat' -a 'plain fancy'`,
			`complete -c client -n '__client_is next:library' -a 'get' -d 'Get a book.'`,
			`complete -c client -n '__client_is top' -a 'run' -d 'Run a script.'`,
			`complete -c client -n '__client_is arg:run:0' -a '(__fish_complete_suffix .star)'`,
			`complete -c client -n '__client_is arg:completion:0' -a 'bash zsh fish'`,
			`complete -c client -n '__client_is word:help' -l 'markdown'`,
			`complete -c client -n '__client_is top' -l 'check' -d 'Check scripts.'`,
			`complete -c client -n '__client_is top' -s 'c' -d 'Run code.'`,
			"set -g __client_keys 'cat' 'jobs' 'jobs-purge' 'library-get' 'library-list' 'run'\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			script, err := Completion(tt.shell, completionSpec())
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(script, w) {
					t.Errorf("the %s script lacks %s", tt.shell, w)
				}
			}
		})
	}
}

// TestCompletionSyntax has the shells that are installed parse the scripts.
func TestCompletionSyntax(t *testing.T) {
	checks := map[string][]string{"bash": {"-n"}, "zsh": {"-n"}, "fish": {"--no-execute"}}
	for _, shell := range CompletionShells {
		t.Run(shell, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed", shell)
			}
			script, err := Completion(shell, completionSpec())
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "client."+shell)
			if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(path, append(checks[shell], file)...).CombinedOutput(); err != nil {
				t.Fatalf("%s rejects the script: %v\n%s", shell, err, out)
			}
		})
	}
}

func TestBashCompletion(t *testing.T) {
	script, err := Completion("bash", completionSpec())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{"a.star", "b.csv", "sub/c.star"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ line, want string }{
		{"client ", "cat completion help jobs library run version"},
		{"client li", "library"},
		{"client -", "--check --version -c"},
		{"client library ", "get list"},
		{"client library-g", "library-get"},
		{"client library get --", "--format --help --name --todir --tofile"},
		{"client library get ", "--format --help --name --todir --tofile -h"},
		{"client library-get --format ", "csv it's"},
		{"client library get --format = ", "csv it's"},
		{"client library get --format =", "csv it's"},
		{"client library get --format=c", "--format=csv"},
		{"client library get --tofile ", "a.star b.csv sub"},
		{"client library get --todir ", "sub"},
		{"client library get --name x --todir s", "sub"},
		{"client --debug library g", "get"},
		{"client library list --pod-ids a ", ""},
		{"client library list --pod-ids a --in", "--infra"},
		{"client library list --to_dir ", "sub"},
		{"client library list --group ", ""},
		{"client library list --", "--apps --format --help --infra --json --pod-ids --pod-type --ratio --site --to_dir --wait"},
		{"client library list --format j", "json"},
		{"client jobs ", "--all --help -h purge"},
		{"client jobs purge --", "--help"},
		{"client run ", "a.star sub"},
		{"client run a.star ", "a.star b.csv sub"},
		{"client run --", "--file --help"},
		{"client run --file ", "a.star b.csv sub"},
		{"client help ", "cat jobs library run"},
		{"client help library ", "get list"},
		{"client help --", "--markdown"},
		{"client completion ", "bash fish zsh"},
		{"client --check ", "a.star sub"},
		{"client -c ", ""},
		{"client version ", ""},
		{"client cat ", "fancy plain"},
		{"client cat plain ", "a.star b.csv sub"},
		{"client cat plain --n 3 --", "--help --n"},
		{"client nosuch --", ""},
		{"client library nosuch ", ""},
	}
	lines := make([]string, len(tests))
	for i, tt := range tests {
		lines[i] = tt.line
	}
	got := testutil.BashComplete(t, script, dir, lines)
	for i, tt := range tests {
		want := strings.Fields(tt.want)
		sort.Strings(want)
		if strings.Join(got[i], " ") != strings.Join(want, " ") {
			t.Errorf("%q completes to %q, want %q", tt.line, got[i], want)
		}
	}
}
