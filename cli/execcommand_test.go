package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestExecCommand: exec_command runs a command in the running one's
// place: its output and exit code are the script's, and what follows it
// does not run.
func TestExecCommand(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	out, errOut, code := run(t, "", "-c", `exec_command(["jobs", "-h"])
print("after")`)
	if want, _, _ := run(t, "", "jobs", "-h"); code != 0 || out != want || errOut != "" {
		t.Fatalf("exec_command jobs -h: %d %q %q", code, out, errOut)
	}
	out, errOut, code = run(t, "", "-c", `exec_command(["output", "--jobid", "ffff"])`)
	if code != 1 || out != "" || !strings.Contains(errOut, "ffff") {
		t.Fatalf("exec_command of a failing command: %d %q %q", code, out, errOut)
	}
	if _, errOut, code = run(t, "", "-c", `exec_command(["output"])`); code != 2 || !strings.Contains(errOut, "usage: client output") {
		t.Fatalf("exec_command of a usage error: %d %q", code, errOut)
	}
	if _, errOut, code = run(t, "", "-c", `exec_command([])`); code != 1 || !strings.Contains(errOut, "no command given") {
		t.Fatalf("exec_command([]): %d %q", code, errOut)
	}
}

// TestRunGetOutputOfALargeOutput: an output too large for its record's
// copy is printed by the output command (exec_command), as that command
// prints it, in every format.
func TestRunGetOutputOfALargeOutput(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("i,name\n")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&csv, "%d,row-%d\n", i, i)
	}
	if _, errOut, code := run(t, "", "dataset", "add", "--name", "big", "--file", write(t, dir, "big.csv", csv.String())); code != 0 {
		t.Fatalf("dataset add: %q", errOut)
	}
	pl := write(t, dir, "big.pipeline", "@dm:recall name = 'big'\n")
	started := regexp.MustCompile(`started job ([0-9a-f]{32})`)
	for _, format := range []string{"auto", "csv", "json", "jsonl"} {
		out, errOut, code := run(t, "", "run-get-output", "--file", pl, "--format", format)
		m := started.FindStringSubmatch(errOut)
		if code != 0 || m == nil {
			t.Fatalf("run-get-output --format %s: %d %q", format, code, errOut)
		}
		want, _, _ := run(t, "", "output", "--jobid", m[1], "--format", format)
		if out != want || !strings.Contains(out, "row-149") {
			t.Fatalf("run-get-output --format %s printed:\n%s\nthe output command:\n%s", format, out, want)
		}
	}
}
