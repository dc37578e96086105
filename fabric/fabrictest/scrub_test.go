package fabrictest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestScrub(t *testing.T) {
	now := time.Now().UTC()
	tmp := t.TempDir()
	day := now.Format("2006_01_02")
	tests := []struct{ name, in, want string }{
		{"protocol time", `"saved_time": "` + now.Format("2006-01-02T15:04:05.000000") + `"`, `"saved_time": "<TIME>"`},
		{"RFC 3339", "at " + now.Format(time.RFC3339Nano) + ".", "at <TIME>."},
		{"RFC 3339 with offset", now.Format("2006-01-02T15:04:05-07:00"), "<TIME>"},
		{"space-separated", now.Format("2006-01-02 15:04:05") + " done", "<TIME> done"},
		{"Go time", now.Format("2006-01-02 15:04:05.999 -0700 MST"), "<TIME>"},
		{"a date a year ahead", "expires " + now.AddDate(1, 0, 0).Format("2006-01-02"), "expires <DATE>"},
		{"test data times stay", "1999-01-02T03:04:05Z 1999-01-02 03:04:05 1999-01-02", "1999-01-02T03:04:05Z 1999-01-02 03:04:05 1999-01-02"},
		{"version", "hot-hosts " + day + "_12", "hot-hosts YYYY_MM_DD_12"},
		{"old version stays", "version 2001_02_03_1", "version 2001_02_03_1"},
		{"job id", "job 3ff0696ca03aa795e677995124338589: Evicted", "job <JOBID>: Evicted"},
		{"ids", "fabric.trace.90256339.3ff0696ca03aa795e677995124338589 docs/725e653c-notes.txt.data", "fabric.trace.<ID>.<JOBID> docs/<ID>-notes.txt.data"},
		{"longer hex stays", "sha 0123456789abcdef0123", "sha 0123456789abcdef0123"},
		{"durations", "running for 0s, took 1m2.5s or 12.5ms, in 3 ms", "running for <DUR>, took <DUR> or <DUR>, in <DUR>"},
		{"right-aligned ms", "1 rows       0.1 ms  x\n2 rows      12.5 ms", "1 rows  <DUR>  x\n2 rows  <DUR>"},
		{"not durations", "web-1 3 steps 2 rows", "web-1 3 steps 2 rows"},
		{"ages", "up 0:00:12, 1 day, 15:58:06, 3 days, 0:00:01", "up <AGE>, <AGE>, <AGE>"},
		{"temp dirs", "wrote " + filepath.Join(tmp, "x.csv") + " and " + tmp, "wrote <TMP>/x.csv and <TMP>"},
		{"ports", "nats://127.0.0.1:46821 localhost:80", "nats://127.0.0.1:<PORT> localhost:<PORT>"},
		{"bytes and pids", "(1609 bytes) at (pid 9379)", "(<SIZE> bytes) at (pid <PID>)"},
		{"volatile keys", `"cpu_count": 2, "mem_total_gb": 23.5, "mem_size_mb": 6.8e-05, "proc_id": 12, "_local_time": 1795532306.03, "config_checksum": "7fc5e1367788343c"`,
			`"cpu_count": <N>, "mem_total_gb": <N>, "mem_size_mb": 6.8e-05, "proc_id": <PID>, "_local_time": <TIME>, "config_checksum": "<HEX>"`},
		{"YAML document start is no table", "a: 1\n---\nb: 2", "a: 1\n---\nb: 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Scrub(tt.in); got != tt.want {
				t.Errorf("Scrub(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestScrubHost(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Skip("no host name")
	}
	if got := Scrub(`{"hostname": "` + host + `"}`); got != `{"hostname": "<HOST>"}` {
		t.Errorf("host name in JSON: %q", got)
	}
	w := max(len(host), 4)
	table := fmt.Sprintf("%-*s  ID\n%s  --\n%-*s  x\n", w, "Host", strings.Repeat("-", w), w, host)
	if got := Scrub(table); got != "Host    ID\n------  --\n<HOST>  x\n" {
		t.Errorf("host name in a table:\n%s", got)
	}
}

// TestScrubTables: cells are scrubbed by column and realigned, so tables
// whose volatile values differ in width scrub the same.
func TestScrubTables(t *testing.T) {
	a := `Pod ID    PID   Age      CPUs  Memory(GB)  Status
--------  ----  -------  ----  ----------  ---------
014f74eb  9379  0:00:00  2     23.541      running
a7765b6d  12    0:00:10  16    7.5         Completed

after the table ` + time.Now().Format("2006-01-02T15:04:05") + `
`
	b := `Pod ID    PID      Age             CPUs  Memory(GB)  Status
--------  -------  --------------  ----  ----------  ---------
ffffffff  1234567  1 day, 0:00:00  128   1024.25     running
00000001  1       0:00:01          1     1           Completed

after the table ` + time.Now().Format("2006-01-02T15:04:05") + `
`
	want := `Pod ID  PID    Age    CPUs  Memory(GB)  Status
------  -----  -----  ----  ----------  ---------
<ID>    <PID>  <AGE>  <N>   <GB>        running
<ID>    <PID>  <AGE>  <N>   <GB>        Completed

after the table <TIME>
`
	for _, in := range []string{a, b} {
		if got := Scrub(in); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
	// A Field/Value table: the row named pid.
	in := "Field    Value\n-------  -----\nstate    running\npid      12345\nworkers  2\n"
	want = "Field    Value\n-------  -------\nstate    running\npid      <PID>\nworkers  2\n"
	if got := Scrub(in); got != want {
		t.Errorf("pid row:\n got %q\nwant %q", got, want)
	}
	// The last column is not padded, and empty cells stay empty.
	in = "Format  Size  OK\n------  ----  ----\ncsv     4120  True\njson          \n"
	want = "Format  Size    OK\n------  ------  ----\ncsv     <SIZE>  True\njson\n"
	if got := NewScrubber().Column("Size", "<SIZE>").Scrub(in); got != want {
		t.Errorf("Column:\n got %q\nwant %q", got, want)
	}
}

func TestScrubLiteral(t *testing.T) {
	id := "3ff0696ca03aa795e677995124338589"
	s := NewScrubber().Literal(id, "<JOB1>").Literal(id[:6], "<JOB1:6>").Literal("12", "<PID>")
	in := "job " + id + " (--jobid " + id[:6] + ") pid 12, 123 rows, 12."
	want := "job <JOB1> (--jobid <JOB1:6>) pid <PID>, 123 rows, <PID>."
	if got := s.Scrub(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if strings.Contains(Scrub(in), "<JOB1>") {
		t.Error("literals leak between scrubbers")
	}
}
