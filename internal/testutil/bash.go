package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// BashComplete sources a bash completion script (one defining _client)
// in a bash process run in dir and completes each of lines, as
// bash-completion's complete -F would: the words of COMP_WORDS separated
// by spaces, the last one (empty after a trailing space) being
// completed. It returns COMPREPLY of each line, sorted, and skips the
// test when bash is not installed.
func BashComplete(t testing.TB, script, dir string, lines []string) [][]string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	file := filepath.Join(t.TempDir(), "client.bash")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var drv strings.Builder
	drv.WriteString("source " + shQuote(file) + "\n")
	drv.WriteString(`t() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _client; printf '%s\n' "${COMPREPLY[@]}"; printf '\036\n'; }` + "\n")
	for _, l := range lines {
		drv.WriteString("t")
		for _, w := range strings.Split(l, " ") {
			drv.WriteString(" " + shQuote(w))
		}
		drv.WriteString("\n")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", drv.String())
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	parts := strings.Split(string(out), "\036\n")
	if len(parts) != len(lines)+1 {
		t.Fatalf("bash printed %d results for %d lines:\n%s", len(parts)-1, len(lines), out)
	}
	res := make([][]string, len(lines))
	for i := range lines {
		for _, w := range strings.Split(parts[i], "\n") {
			if w != "" {
				res[i] = append(res[i], w)
			}
		}
		sort.Strings(res[i])
	}
	return res
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
