package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/nats-io/nats.go/jetstream"
)

// TestOutputLogArchive: the log archive commands on three minutes of
// records written as the archiver writes them: repositories added
// (twice, badly), listed; names, sizes, records read (a table, lines,
// some, paced), downloaded in both layouts, replayed into a new stream
// (every record once, in order) and into it again; and the errors of
// each.
func TestOutputLogArchive(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	s := newSession(t, "logarchive-add-platform", "logarchive-repos", "logarchive-names", "logarchive-data-size",
		"logarchive-data-read", "logarchive-download", "logarchive-replay")
	s.sc.Column("Bytes", "<BYTES>")
	s.steps(
		step{cmd: "logarchive-repos"},
		step{cmd: "logarchive-add-platform --repo edge --prefix logs --retention 30 --streams syslog-tcp,snmp-traps"},
		step{cmd: "logarchive-add-platform --repo edge --prefix logs", code: 1},
		step{cmd: "logarchive-add-platform --repo 'a b' --prefix logs", code: 1},
		step{cmd: "logarchive-add-platform --repo x", code: 2},
		step{cmd: "logarchive-repos"},
		step{cmd: "logarchive-repos --json"},
		step{cmd: "logarchive-repos --all", code: 2},
	)
	// Three minutes of syslog records, as the archiver writes them.
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	st, err := tenant.New(nc).Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := logarchive.Open(ctx, st, "edge")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	for m := range 3 {
		var recs [][]byte
		for i := range 2 {
			ts := start.Add(time.Duration(m)*time.Minute + time.Duration(i)*200*time.Millisecond)
			recs = append(recs, fmt.Appendf(nil, `{"timestamp":%q,"host":"r%d","message":"event %d.%d"}`, api.Timestamp(ts), i+1, m, i))
		}
		if _, err := a.WriteMinute(ctx, "syslog", start.Add(time.Duration(m)*time.Minute), recs); err != nil {
			t.Fatal(err)
		}
	}
	out := s.vars["DIR"] + "/out"
	flat := s.vars["DIR"] + "/flat"
	if err := os.Mkdir(flat, 0o755); err != nil {
		t.Fatal(err)
	}
	s.steps(
		step{cmd: "logarchive-names --repo edge"},
		step{cmd: "logarchive-names --repo edge --json"},
		step{cmd: "logarchive-names --repo nope", code: 1},
		step{cmd: "logarchive-data-size --repo edge --name syslog --from 2026-11-25T10:00:00 --minutes 15"},
		step{cmd: "logarchive-data-size --repo edge --name syslog --from 2026-11-25T12:00:00 --minutes 1 --json"},
		step{cmd: "logarchive-data-size --repo edge --name syslog --from soon", code: 1},
		step{cmd: "logarchive-data-read --repo edge --name syslog --from 2026-11-25T10:00:00"},
		step{cmd: "logarchive-data-read --repo edge --name syslog --from 2026-11-25T10:00:00 --line --max_rows 3"},
		step{cmd: "logarchive-data-read --repo edge --name syslog --from 2026-11-25T10:02:00 --minutes 1 --speed 1.0"},
		step{cmd: "logarchive-data-read --repo edge --name syslog --from 2026-11-25T11:00:00"},
		step{cmd: "logarchive-data-read --repo edge --name syslog --minutes 0", code: 1},
	)
	// Times as other senders write them (RFC 3339 with a zone) are shown as
	// every time is, never in Go's default form ("+0000 UTC").
	zoned := time.Date(2026, 11, 25, 12, 30, 0, 0, time.UTC)
	if _, err := a.WriteMinute(ctx, "syslog", zoned, [][]byte{
		fmt.Appendf(nil, `{"timestamp":%q,"host":"r9","message":"zoned"}`, zoned.Format(time.RFC3339Nano)),
		fmt.Appendf(nil, `{"timestamp":%q,"host":"r9","message":"offset"}`, zoned.In(time.FixedZone("", 2*3600)).Format(time.RFC3339)),
	}); err != nil {
		t.Fatal(err)
	}
	s.runThen(0, "", "logarchive-data-read --repo edge --name syslog --from 2026-11-25T12:30:00 --minutes 1", func(out, _ string) {
		if strings.Contains(out, "UTC") || strings.Count(out, "2026-11-25T12:30:00") != 2 {
			t.Errorf("data-read shows times in another form than 2026-11-25T12:30:00...:\n%s", out)
		}
	})
	s.steps(
		step{cmd: "logarchive-download --repo edge --name syslog --from 2026-11-25T10:00:00 --out $DIR/out"},
		step{cmd: "logarchive-download --repo edge --name syslog --from 2026-11-25T10:00:00 --out $DIR/flat --flatten"},
		step{cmd: "logarchive-download --repo edge --name syslog --out $DIR/none", code: 1},
	)
	rate := regexp.MustCompile(`\((\d+) records/s;`)
	replay := func(want int, line string) {
		s.runThen(want, "", line, func(_, errOut string) {
			if m := rate.FindStringSubmatch(errOut); m != nil {
				s.sc.Literal(m[1], "<N>")
			}
		})
	}
	replay(0, "logarchive-replay --repo edge --name syslog --from 2026-11-25T10:00:00 --minutes 3 --stream replayed --site local")
	replay(0, "logarchive-replay --repo edge --name syslog --from 2026-11-25T10:01:00 --stream replayed --site 'loc.*' --label again --max_rows 1 --batch_size 1")
	s.steps(
		step{cmd: "logarchive-replay --repo edge --name syslog --stream replayed", code: 2},
		step{cmd: "logarchive-replay --repo edge --name syslog --stream replayed --site nowhere", code: 1},
		step{cmd: "logarchive-replay --repo nope --name syslog --stream replayed --site local", code: 1},
		step{cmd: "logarchive-replay --repo edge --name syslog --stream 'a b' --site local", code: 1},
		step{cmd: "logarchive-replay --repo edge --name syslog --stream replayed --site local --speed -1", code: 2},
		step{cmd: "logarchive-replay --repo edge --name syslog --stream replayed --site local --batch_size 0", code: 2},
	)
	var got []string
	if _, err := streams.Read(ctx, js, "replayed", streams.ReadOptions{}, func(m streams.Message) error {
		got = append(got, string(m.Data))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantRecords := []string{
		`{"timestamp":"2026-11-25T10:00:00.000000","host":"r1","message":"event 0.0"}`,
		`{"timestamp":"2026-11-25T10:00:00.200000","host":"r2","message":"event 0.1"}`,
		`{"timestamp":"2026-11-25T10:01:00.000000","host":"r1","message":"event 1.0"}`,
		`{"timestamp":"2026-11-25T10:01:00.200000","host":"r2","message":"event 1.1"}`,
		`{"timestamp":"2026-11-25T10:02:00.000000","host":"r1","message":"event 2.0"}`,
		`{"timestamp":"2026-11-25T10:02:00.200000","host":"r2","message":"event 2.1"}`,
		`{"replay_label":"again","timestamp":"2026-11-25T10:01:00.000000","host":"r1","message":"event 1.0"}`,
	}
	if strings.Join(got, "\n") != strings.Join(wantRecords, "\n") {
		t.Errorf("the stream replayed into holds:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantRecords, "\n"))
	}
	// The layouts.
	for dir, want := range map[string]int{out: 3, flat: 3} {
		var files []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				files = append(files, rel)
			}
			return nil
		})
		sort.Strings(files)
		if len(files) != want {
			t.Errorf("%s holds %v", dir, files)
		}
		for _, rel := range files {
			nested := strings.Count(rel, string(filepath.Separator)) == 5 && strings.HasPrefix(rel, filepath.FromSlash("2026/11/25/10/0"))
			if (dir == out) != nested {
				t.Errorf("%s: %s is not in the expected layout", dir, rel)
			}
		}
	}
}
