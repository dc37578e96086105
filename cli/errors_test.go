package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/internal/testutil"
)

// TestGroupHelp: a group with -h lists its commands (it said "unknown
// command"); a bare group is a usage error that lists them too.
func TestGroupHelp(t *testing.T) {
	for _, args := range [][]string{{"dataset", "-h"}, {"dataset", "--help"}, {"help", "dataset"}} {
		out, errOut, code := run(t, "", args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
		}
		testutil.Golden(t, filepath.Join("testdata", "group-help.golden"), out, *update)
	}
	out, errOut, code := run(t, "", "dataset")
	if code != 2 || out != "" {
		t.Fatalf("bare group: exit %d, stdout %q", code, out)
	}
	testutil.Golden(t, filepath.Join("testdata", "group-bare.golden"), errOut, *update)
}

// TestErrorsNameTheCommand: a failing command's error names the command
// the user typed, not the builtin its script called.
func TestErrorsNameTheCommand(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	var got strings.Builder
	for _, args := range [][]string{
		{"dataset", "delete", "--name", "nope", "--yes"},
		{"dataset", "get", "--name", "nope"},
		{"dataset", "meta", "--name", "nope"},
		{"dataset", "bounded-delete", "--name", "nope", "--yes"},
		{"pipeline", "get", "--name", "nope", "--version", "2026_01_01_1"},
		{"object", "get", "--name", "nope", "--folder", "f"},
		{"schema", "delete", "--name", "nope"},
		{"output", "--jobid", "nope"},
		{"evict", "--jobid", "nope", "--yes"},
	} {
		_, errOut, code := run(t, "", args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
		got.WriteString("$ client " + strings.Join(args, " ") + "\n" + errOut)
	}
	testutil.Golden(t, filepath.Join("testdata", "errors-name-the-command.golden"), got.String(), *update)
}
