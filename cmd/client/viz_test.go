package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// vizSites are the sites of the rows writeBig writes, by row index mod 5.
var vizSites = []string{"nyc", "lon", "sfo", "fra", "sin"}

// vizRow returns the cells of row i of writeBig's table: id, host, site,
// cpu (as the viewer prints them).
func vizRow(i int) []string {
	return []string{strconv.Itoa(i), fmt.Sprintf("web-%d", i%1000), vizSites[i%5], vizCPU(i)}
}

// vizCPUx100 is row i's cpu times 100.
func vizCPUx100(i int) int { return (i * 7919) % 10000 }

func vizCPU(i int) string {
	s := strconv.FormatFloat(float64(vizCPUx100(i))/100, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// writeBig writes n rows (id, host, site, cpu) to a Parquet file with
// arrow-go, in batches, and returns its path.
func writeBig(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "host", Type: arrow.BinaryTypes.String},
		{Name: "site", Type: arrow.BinaryTypes.String},
		{Name: "cpu", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(256*1024), parquet.WithCompression(compress.Codecs.Snappy))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, 1000)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("web-%d", i)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for start := 0; start < n; start += 64 * 1024 {
		for i := start; i < min(start+64*1024, n); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.StringBuilder).Append(hosts[i%1000])
			b.Field(2).(*array.StringBuilder).Append(vizSites[i%5])
			b.Field(3).(*array.Float64Builder).Append(float64(vizCPUx100(i)) / 100)
		}
		rec := b.NewRecord()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// rows returns the words of the table rows the viewer shows (the lines
// between the header and the status line).
func (tm *terminal) rows() [][]string {
	lines := strings.Split(strings.TrimRight(tm.screen(), "\n"), "\n")
	if len(lines) < 3 {
		return nil
	}
	var out [][]string
	for _, l := range lines[2 : len(lines)-1] {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// waitUntil polls the screen every few milliseconds until ok, and
// returns how long that took.
func (tm *terminal) waitUntil(what string, timeout time.Duration, ok func(screen string) bool) time.Duration {
	tm.t.Helper()
	start := time.Now()
	for time.Since(start) < timeout {
		if ok(tm.screen()) {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	tm.t.Fatalf("timed out after %s waiting for %s:\n%s", timeout, what, tm.screen())
	return 0
}

// waitForRow waits until the first row shown is want.
func (tm *terminal) waitForFirstRow(want []string, timeout time.Duration) {
	tm.t.Helper()
	tm.waitUntil(fmt.Sprintf("the first row %q", want), timeout, func(string) bool {
		r := tm.rows()
		return len(r) > 0 && slices.Equal(r[0], append([]string{want[0]}, want...))
	})
}

// format writes n with thousands separators, as the viewer does.
func format(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestVizInTerminal: "dataset get --name big --viz" in a real terminal
// (a tmux pane) over a dataset of 10,000,000 rows (300,000 with -short):
// the first screen within a second, the last row, a sort, a filter typed
// at /, each checked on the screen; q leaves the terminal as it was
// (main screen, cursor shown, the same stty settings). "viz --dataset"
// killed with SIGTERM, and "viz FILE" left with Ctrl-C, leave it as it
// was too.
func TestVizInTerminal(t *testing.T) {
	n := 10_000_000
	if testing.Short() {
		n = 300_000
	}
	home := filepath.Join(t.TempDir(), "home")
	bin := buildClient(t)
	t.Cleanup(func() { client(t, home, "fabric", "down") })
	path := writeBig(t, n)
	if out, errOut, code := client(t, home, "dataset", "add", "--name", "big", "--file", path); code != 0 {
		t.Fatalf("dataset add: exit %d\n%s%s", code, out, errOut)
	}
	dir := t.TempDir()
	line := fmt.Sprintf("stty -g > %[1]s/before; env FABRIC_HOME=%[2]s TERM=xterm-256color %[3]s dataset get --name big --viz; echo viz exited $?; stty -g > %[1]s/after; sleep 60",
		dir, home, bin)
	tm := startPane(t, 100, 30, line)
	total := format(n)

	took := tm.waitUntil("the first screen", 10*time.Second, func(s string) bool {
		r := tm.rows()
		return strings.Contains(s, "row 1 of "+total) && len(r) >= 27 && slices.Equal(r[26], append([]string{"26"}, vizRow(26)...))
	})
	if took > time.Second {
		t.Errorf("the first screen took %s, want under a second", took)
	}
	t.Logf("the first screen of %s rows took %s", total, took)
	if s := tm.screen(); !strings.Contains(s, "big · "+total+" rows × 4 columns") {
		t.Fatalf("no title:\n%s", s)
	}

	tm.keys("End")
	tm.waitUntil("the last row", 10*time.Second, func(s string) bool {
		r := tm.rows()
		return strings.Contains(s, "row "+total+" of "+total) && len(r) > 0 && slices.Equal(r[len(r)-1], append([]string{strconv.Itoa(n - 1)}, vizRow(n-1)...))
	})
	tm.keys("PgUp", "Home")
	tm.waitForFirstRow(vizRow(0), 10*time.Second)

	// Sort by cpu, descending: the highest cpu first, ties in the
	// table's order.
	tm.keys("Right", "Right", "Right", "s", "s")
	tm.waitUntil("the sort", 60*time.Second, func(s string) bool { return strings.Contains(s, "sorted by cpu ↓") })
	best := 0
	for i := range n {
		if vizCPUx100(i) > vizCPUx100(best) {
			best = i
		}
	}
	tm.waitForFirstRow(vizRow(best), 10*time.Second)

	// Filter, still sorted.
	tm.keys("/")
	tm.tmux("send-keys", "-t", "repl", "-l", "site is 'lon' and cpu > 99.9")
	tm.keys("Enter")
	var match []int
	for i := range n {
		if i%5 == 1 && vizCPUx100(i) > 9990 {
			match = append(match, i)
		}
	}
	slices.SortStableFunc(match, func(a, b int) int { return vizCPUx100(b) - vizCPUx100(a) })
	tm.waitUntil("the filter", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "filter: site is 'lon' and cpu > 99.9 · sorted by cpu ↓") && strings.Contains(s, "row 1 of "+format(len(match)))
	})
	tm.waitForFirstRow(vizRow(match[0]), 10*time.Second)
	for k, r := range tm.rows() {
		if want := append([]string{strconv.Itoa(match[k])}, vizRow(match[k])...); !slices.Equal(r, want) {
			t.Fatalf("filtered row %d = %q, want %q", k, r, want)
		}
	}

	tm.keys("q")
	tm.waitFor("viz exited 0", 10*time.Second)
	checkRestored(t, tm, dir)
	if s := tm.screen(); strings.Contains(s, "rows ×") {
		t.Fatalf("the viewer is still on the screen:\n%s", s)
	}

	// SIGTERM: the viewer ends and restores the terminal.
	line = fmt.Sprintf("stty -g > %[1]s/before; env FABRIC_HOME=%[2]s TERM=xterm-256color %[3]s viz --dataset big; echo viz exited $?; stty -g > %[1]s/after; sleep 60",
		dir, home, bin)
	tm2 := startPane(t, 100, 30, line)
	tm2.waitForFirstRow(vizRow(0), 10*time.Second)
	pid := childOf(t, tm2.tmux("display-message", "-p", "-t", "repl", "#{pane_pid}"))
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	tm2.waitFor("viz exited", 10*time.Second)
	checkRestored(t, tm2, dir)

	// Ctrl-C leaves too, here from a local Parquet file.
	line = fmt.Sprintf("stty -g > %[1]s/before; env FABRIC_HOME=%[2]s TERM=xterm-256color %[3]s viz %[4]s; echo viz exited $?; stty -g > %[1]s/after; sleep 60",
		dir, home, bin, path)
	tm3 := startPane(t, 100, 30, line)
	tm3.waitForFirstRow(vizRow(0), 10*time.Second)
	tm3.keys("C-c")
	tm3.waitFor("viz exited 0", 10*time.Second)
	checkRestored(t, tm3, dir)
}

// checkRestored checks that the pane is back on its main screen with the
// cursor shown, and that stty printed the same settings before and after.
func checkRestored(t *testing.T, tm *terminal, dir string) {
	t.Helper()
	if got := strings.TrimSpace(tm.tmux("display-message", "-p", "-t", "repl", "#{alternate_on} #{cursor_flag}")); got != "0 1" {
		t.Errorf("alternate screen, cursor shown = %q, want 0 1", got)
	}
	var before, after []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		before, _ = os.ReadFile(filepath.Join(dir, "before"))
		after, _ = os.ReadFile(filepath.Join(dir, "after"))
		if len(after) > 0 {
			break
		}
	}
	if len(before) == 0 || string(before) != string(after) {
		t.Errorf("stty settings before %q, after %q", before, after)
	}
	os.Remove(filepath.Join(dir, "after"))
}

// childOf returns the process whose parent is the process ppid (a text
// number): the client the pane's shell runs.
func childOf(t *testing.T, ppid string) int {
	t.Helper()
	ppid = strings.TrimSpace(ppid)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc: ", err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 && fields[1] == ppid {
			return pid
		}
	}
	t.Fatalf("no child of the pane's shell %s", ppid)
	return 0
}
