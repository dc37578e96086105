package cli

import (
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fabricops/fabric/internal/testutil"
	"github.com/fabricops/fabric/runtime/host"
)

// completionScript returns what client completion SHELL prints.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	out, errOut, code := run(t, "", "completion", shell)
	if code != 0 || errOut != "" {
		t.Fatalf("completion %s: exit %d, stderr %q", shell, code, errOut)
	}
	return out
}

func TestCompletionBash(t *testing.T) {
	script := completionScript(t, "bash")
	if !strings.Contains(script, "\ncomplete -F _client client\n") {
		t.Fatal("the script does not register _client with complete -F")
	}
	dir := t.TempDir()
	write(t, dir, "flow.star", "")
	write(t, dir, "hosts.csv", "")
	write(t, dir, "lib/x.star", "")
	tests := []struct {
		line  string
		want  []string // all of these, and nothing else when exact
		exact bool
	}{
		{"client data", []string{"dataset"}, true},
		{"client ", []string{"dataset", "checksum", "bot-package", "help", "run", "completion", "version"}, false},
		{"client dataset ", []string{"list", "get", "add", "delete", "meta", "bounded-add"}, false},
		{"client dataset g", []string{"get"}, true},
		{"client dataset-l", []string{"dataset-list"}, true},
		{"client dataset get --", []string{"--name", "--tofile", "--format", "--viz", "--help"}, true},
		{"client dataset-get --", []string{"--name", "--tofile", "--format", "--viz", "--help"}, true},
		{"client dataset get --format ", []string{"csv", "json", "jsonl", "parquet", "xlsx", "auto"}, true},
		{"client dataset get --format js", []string{"json", "jsonl"}, true},
		{"client dataset get --format = ", []string{"csv", "json", "jsonl", "parquet", "xlsx", "auto"}, true},
		{"client dataset get --format=x", []string{"--format=xlsx"}, true},
		{"client dataset get --name n --tofile ", []string{"flow.star", "hosts.csv", "lib"}, true},
		{"client checksum --pipeline ", []string{"flow.star", "hosts.csv", "lib"}, true},
		{"client bot-package generate --output_dir ", []string{"lib"}, true},
		{"client object get --todir ", []string{"lib"}, true},
		{"client dataset bounded-add --schema ", nil, true},
		{"client run ", []string{"flow.star", "lib"}, true},
		{"client run flow.star ", []string{"flow.star", "hosts.csv", "lib"}, true},
		{"client run --", []string{"--name", "--file", "--version", "--site"}, false},
		{"client run --file ", []string{"flow.star", "hosts.csv", "lib"}, true},
		{"client --check ", []string{"flow.star", "lib"}, true},
		{"client help ", []string{"dataset", "checksum"}, false},
		{"client help dataset ", []string{"list", "get", "add"}, false},
		{"client help --", []string{"--markdown"}, true},
		{"client completion ", []string{"bash", "zsh", "fish"}, true},
		{"client --debug dataset ", []string{"list", "get"}, false},
	}
	lines := make([]string, len(tests))
	for i, tt := range tests {
		lines[i] = tt.line
	}
	got := testutil.BashComplete(t, script, dir, lines)
	for i, tt := range tests {
		have := map[string]bool{}
		for _, w := range got[i] {
			have[w] = true
		}
		for _, w := range tt.want {
			if !have[w] {
				t.Errorf("%q: %q lacks %q", tt.line, got[i], w)
			}
		}
		if tt.exact && len(got[i]) != len(tt.want) {
			t.Errorf("%q completes to %q, want only %q", tt.line, got[i], tt.want)
		}
	}
}

// TestCompletionEveryCommand completes the flags of every bundled command,
// named with spaces and with hyphens.
func TestCompletionEveryCommand(t *testing.T) {
	t.Setenv("FABRIC_HOME", t.TempDir())
	script := completionScript(t, "bash")
	sh := &shell{io: &host.IO{Stdout: io.Discard, Stderr: io.Discard}}
	ix, err := sh.index()
	if err != nil {
		t.Fatal(err)
	}
	cmds := sh.allCommands(ix, "")
	var lines []string
	var wants []string
	for _, c := range cmds {
		want := []string{"--help"}
		for _, f := range c.Flags {
			if !f.Positional && f.DeprecatedFor == "" {
				want = append(want, "--"+f.Name)
			}
		}
		sort.Strings(want)
		lines = append(lines, "client "+c.Name+" --", "client "+c.Key()+" --")
		wants = append(wants, strings.Join(want, " "), strings.Join(want, " "))
	}
	if len(cmds) < 20 {
		t.Fatalf("only %d commands", len(cmds))
	}
	got := testutil.BashComplete(t, script, t.TempDir(), lines)
	for i, l := range lines {
		if strings.Join(got[i], " ") != wants[i] {
			t.Errorf("%q completes to %q, want %q", l, got[i], wants[i])
		}
	}
}

// TestCompletionSyntax has the shells that are installed parse the scripts.
func TestCompletionSyntax(t *testing.T) {
	checks := map[string][]string{"bash": {"-n"}, "zsh": {"-n"}, "fish": {"--no-execute"}}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed", shell)
			}
			file := write(t, t.TempDir(), "client."+shell, completionScript(t, shell))
			if out, err := exec.Command(path, append(checks[shell], file)...).CombinedOutput(); err != nil {
				t.Fatalf("%s rejects the script: %v\n%s", shell, err, out)
			}
		})
	}
}

func TestCompletionScriptsHeaders(t *testing.T) {
	if s := completionScript(t, "zsh"); !strings.HasPrefix(s, "#compdef client\n") || !strings.Contains(s, "_arguments") {
		t.Errorf("zsh script:\n%.300s", s)
	}
	if s := completionScript(t, "fish"); !strings.Contains(s, "\ncomplete -c client -n '__client_is cmd:dataset-get' -l 'format' -x -a 'csv json jsonl parquet xlsx auto'") {
		t.Errorf("fish script lacks the choices of dataset get --format")
	}
	// The hyphenated spellings, as bash and zsh complete them
	// (dataset-li -> dataset-list), offered once a hyphen is typed.
	fish := completionScript(t, "fish")
	for _, want := range []string{
		"string match -q -- '?*-*' \"$cur\"; and echo topkey",
		"\ncomplete -c client -n '__client_is topkey' -a 'dataset-list' -d ",
	} {
		if !strings.Contains(fish, want) {
			t.Errorf("fish script lacks %q", want)
		}
	}
}

func TestCompletionUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"completion", "tcsh"}, `error: unknown shell "tcsh"`},
		{[]string{"completion"}, "error: completion needs a shell: bash, zsh, fish"},
		{[]string{"completion", "bash", "zsh"}, `error: unexpected argument "zsh"`},
	}
	for _, tt := range tests {
		out, errOut, code := run(t, "", tt.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, tt.want+"\n") || !strings.Contains(errOut, "usage: client completion bash|zsh|fish") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q with the usage", tt.args, code, out, errOut, tt.want)
		}
	}
	out, _, code := run(t, "", "completion", "-h")
	for _, want := range []string{
		"usage: client completion bash|zsh|fish",
		"client completion bash > /etc/bash_completion.d/client",
		"source <(client completion bash)",
		`client completion zsh > "${fpath[1]}/_client"`,
		"client completion fish > ~/.config/fish/completions/client.fish",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion -h: exit %d, lacks %q:\n%s", code, want, out)
		}
	}
}

// TestHelpMarkdown keeps docs/commands.md what client help --markdown
// prints (go test ./cli -run TestHelpMarkdown -update rewrites it).
func TestHelpMarkdown(t *testing.T) {
	out, errOut, code := run(t, "", "help", "--markdown")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	testutil.Golden(t, filepath.Join("testdata", "../../docs/commands.md"), out, *update)
}

func TestHelpMarkdownGroup(t *testing.T) {
	out, _, code := run(t, "", "help", "--markdown", "dataset")
	if code != 0 || !strings.Contains(out, "\n## dataset get\n") || strings.Contains(out, "## checksum") {
		t.Fatalf("help --markdown GROUP: %d\n%s", code, out)
	}
	_, errOut, code := run(t, "", "help", "--markdown", "nosuch")
	if code != 2 || !strings.Contains(errOut, `unknown command "nosuch"`) {
		t.Errorf("unknown group: %d %q", code, errOut)
	}
	_, errOut, code = run(t, "", "help", "--markdown", "--html")
	if code != 2 || !strings.Contains(errOut, "error: unknown flag --html") {
		t.Errorf("unknown flag: %d %q", code, errOut)
	}
}
