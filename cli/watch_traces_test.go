package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/fabrictest"
)

// tracedPipeline loops for a while, tracing its three body steps at every
// iteration.
const tracedPipeline = `## traced steps in a timed loop
@c:timed-loop interval = 0.2 & duration = 60
  --> @dm:empty
  --> @dm:addrow host = 'web-1' & cpu = 93.5
  --> @dm:addrow host = 'web-2' & cpu = 12
`

// traceLine is a line of watch-traces: time, job id (8 characters),
// pipeline, block and step, then the tag padded to 24 characters, the
// status padded to 9, the rows right-aligned in 6, the duration in ms with
// one decimal right-aligned in 8, and the message.
var traceLine = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT[\d:.]+)  ([0-9a-f]{8})  (\S+)  block (\d+) step (\d+)  (.{24}) (.{9}) (.{6}) rows  (.{8}) ms(?:  (.*))?$`)

// TestWatchTracesOfRunningJob: watch-traces prints the traces of a job
// that runs, one formatted line each.
func TestWatchTracesOfRunningJob(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{})
	id := startJob(t, write(t, t.TempDir(), "traced.pipeline", tracedPipeline))
	t.Cleanup(func() { run(t, "", "evict", "--jobid", id, "--yes") })
	jobStatus(t, id, "Running")

	out, errOut, code := run(t, "", "watch-traces", "--timeout", "2")
	if code != 0 || !strings.Contains(errOut, "Ctrl-C stops") {
		t.Fatalf("watch-traces: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := traceLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("a line that is no trace:\n%q\nstdout:\n%s", line, out)
		}
		if m[2] != id[:8] {
			continue
		}
		tag, status := strings.TrimRight(m[6], " "), strings.TrimRight(m[7], " ")
		rows, err := strconv.Atoi(strings.TrimLeft(m[8], " "))
		if err != nil || m[3] != "traced" || m[4] != "1" || !strings.HasPrefix(tag, "@") ||
			(status != "started" && status != "completed") || m[10] != "" {
			t.Fatalf("trace of job %s: %q", id, line)
		}
		if !regexp.MustCompile(`^ *\d+\.\d$`).MatchString(m[9]) {
			t.Fatalf("duration %q is not in ms with one decimal: %q", m[9], line)
		}
		// The steps' padding as the command intends it (Go's %-24s %-9s
		// %6d are what the script formats by hand).
		if want := fmt.Sprintf("%-24s %-9s %6d rows", tag, status, rows); !strings.Contains(line, want) {
			t.Fatalf("line %q lacks %q", line, want)
		}
		seen[m[5]+" "+tag+" "+status+" "+strconv.Itoa(rows)] = true
	}
	for _, want := range []string{"2 @dm:empty completed 0", "3 @dm:addrow completed 1", "4 @dm:addrow completed 2"} {
		if !seen[want] {
			t.Errorf("no trace of step %s rows of job %s in:\n%s", want, id, out)
		}
	}
}

// TestWatchTracesFormat: the helpers the command scripts format columns
// with give what the %-24s, %6d and %8.1f of other languages give (the %
// operator of Starlark has no flags, width or precision).
func TestWatchTracesFormat(t *testing.T) {
	out, errOut, code := run(t, "", "-c", `
load("@fabric//lib/fmt.star", "ljust", "rjust", "fixed")
print("[%s|%s|%s|%s]" % (ljust("@dm:addrow", 24), ljust("completed", 9), rjust(7, 6), rjust(fixed(12.345, 1), 8)))
print("[%s|%s|%s]" % (ljust("longer than six", 6), rjust(1234567, 6), fixed(0.04, 1)))
print("[%s|%s|%s|%s]" % (fixed(2.25, 1), fixed(99.96, 1), fixed(-1.26, 1), fixed(3, 2)))
`)
	want := fmt.Sprintf("[%-24s|%-9s|%6d|%8.1f]\n[%-6s|%6d|%.1f]\n[%s|%.1f|%.1f|%.2f]\n",
		"@dm:addrow", "completed", 7, 12.345, "longer than six", 1234567, 0.04, "2.3", 99.96, -1.26, 3.0)
	if code != 0 || out != want {
		t.Fatalf("exit %d %s\n got %q\nwant %q", code, errOut, out, want)
	}
}
