package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/internal/testutil"
)

// outputCSV is the table of the output transcripts. Its times are far from
// now, so the scrubber keeps them.
const outputCSV = "region,units,price,ok,when\nnorth,3,2.5,true,1999-01-02T03:04:05Z\nsouth,7,1.25,false,1999-02-03T04:05:06Z\neast,1,10,true,1999-03-04T05:06:07Z\n"

// TestOutputLocal: the commands that need no fabric.
func TestOutputLocal(t *testing.T) {
	s := newSession(t, "checksum", "bot-package-generate", "file-ops-copy", "file-ops-csv-to-parquet",
		"file-ops-test-formats", "merge-logarchive-files")
	s.sc.Column("Size", "<SIZE>") // test-formats: sizes vary with compression
	dir := s.vars["DIR"]
	write(t, dir, "sales.csv", outputCSV)
	write(t, dir, "bad.csv", "a,b\n1,2\n3,4,5\n")
	write(t, dir, "hot-hosts.json", pipelineJSON)
	write(t, dir, "hot-hosts.pipeline", hotHostsText)
	write(t, dir, "bad.json", "{\n  \"name\": \"x\",\n  \"data\": [1,,2]\n}")
	write(t, dir, "bad.pipeline", "@dm:empty\n-->\n")
	testutil.WriteGz(t, filepath.Join(dir, "logs", "2026", "01", "x.gz"), `{"ts": 3, "m": "c"}`+"\n"+`{"ts": 1, "m": "a"}`+"\n")
	testutil.WriteGz(t, filepath.Join(dir, "logs", "2026", "02", "y.gz"), `{"ts": 2, "m": "b"}`+"\n")
	write(t, dir, "notgz/z.gz", "not gzip\n")

	s.steps(
		step{cmd: "checksum --pipeline $DIR/hot-hosts.json"},
		step{cmd: "checksum --pipeline $DIR/hot-hosts.pipeline --json"},
		step{cmd: "checksum --pipeline $DIR/bad.json", code: 1},
		step{cmd: "checksum --pipeline $DIR/bad.pipeline", code: 1},
		step{cmd: "checksum --pipeline $DIR/none.json", code: 1},

		step{cmd: "bot-package generate --namespace acme --name acme-bots --version 2.0.1 --bots 2 --output_dir $DIR/pkg",
			stdin: "fetch-devices\nsource\n1\nhostname\ntext\nyes\npush-alerts\nsideways\nsink\n0\n"},
		step{cat: "$DIR/pkg/bots.yml", key: "bot-package-generate"},
		step{cat: "$DIR/pkg/acme.star", key: "bot-package-generate"},
		step{cat: "$DIR/pkg/test_acme.star", key: "bot-package-generate"},
		step{cmd: "bot-package generate --namespace acme --name other --output_dir $DIR/pkg", stdin: "x\nsource\n0\n", code: 1},
		step{cmd: "bot-package generate --namespace acme --name acme-bots --output_dir $DIR/pkg2", stdin: "fetch\n", code: 1},

		step{cmd: "file-ops copy --from $DIR/sales.csv --to $DIR/sales.jsonl"},
		step{cat: "$DIR/sales.jsonl", key: "file-ops-copy"},
		step{cmd: "file-ops copy --from $DIR/sales.jsonl --to $DIR/back.csv"},
		step{cat: "$DIR/back.csv", key: "file-ops-copy"},
		step{cmd: "file-ops copy --from $DIR/sales.csv --to $DIR/sales.xml", code: 1},
		step{cmd: "file-ops copy --from $DIR/bad.csv --to $DIR/bad.json", code: 1},
		step{cmd: "file-ops copy --from $DIR/none.csv --to $DIR/x.csv", code: 1},

		step{cmd: "file-ops csv-to-parquet --from $DIR/sales.csv --to $DIR/sales.parquet"},
		step{cmd: "file-ops copy --from $DIR/sales.parquet --to $DIR/parquet.csv", setup: true},
		step{cat: "$DIR/parquet.csv", key: "file-ops-csv-to-parquet"},
		step{cmd: "file-ops csv-to-parquet --from $DIR/bad.csv --to $DIR/bad.parquet", code: 1},

		step{cmd: "file-ops test-formats --rows 50 --dir $DIR/formats"},
		step{cmd: "file-ops test-formats --rows 0 --dir $DIR/formats", code: 1},

		step{cmd: "merge-logarchive-files --folder $DIR/logs --tofile $DIR/merged.jsonl --ts ts"},
		step{cat: "$DIR/merged.jsonl", key: "merge-logarchive-files"},
		step{cmd: "merge-logarchive-files --folder $DIR/notgz --tofile $DIR/merged2.jsonl", code: 1},
		step{cmd: "merge-logarchive-files --folder $DIR/none --tofile $DIR/merged3.jsonl", code: 1},
		step{cmd: "merge-logarchive-files --folder $DIR/logs --tofile $DIR/merged4.jsonl --sample 1.5", code: 2},
	)
}

// TestOutputLocalFabric: the fabric commands, against a FABRIC_HOME of
// the test's own. No local fabric is started or stopped here (cmd/client
// tests that): a state file naming the test process stands for a running
// fabric, and fabric down only ever runs when none is recorded.
func TestOutputLocalFabric(t *testing.T) {
	s := newSession(t, "fabric-config", "fabric-status", "fabric-logs", "fabric-up", "fabric-down")
	home := filepath.Join(s.vars["DIR"], "home")
	t.Setenv("FABRIC_HOME", home)
	t.Setenv("FABRIC_NETWORK_CONFIG", "")
	t.Setenv("PATH", t.TempDir()) // no fabricd to start, whatever happens
	write(t, home, "fabric_network_config.json", `{"tenant": "a", "nats": {"urls": ["nats://10.1.2.3:4222"], "user": "a", "password": "s3cret"}}`)
	write(t, s.vars["DIR"], "bad-config.json", `{"tenant": "a", "nats": {"urls": [}`)

	s.steps(
		step{cmd: "fabric config"},
		step{do: func() {
			s.withNetworkConfig(filepath.Join(s.vars["DIR"], "bad-config.json"), func() { s.run(1, "", "fabric config") })
		}},
		step{do: func() {
			s.withNetworkConfig(filepath.Join(s.vars["DIR"], "none.json"), func() { s.run(1, "", "fabric config") })
		}},

		// Nothing runs.
		step{cmd: "fabric status", code: 3},
		step{cmd: "fabric status --json", code: 3},
		step{cmd: "fabric down"},
		step{cmd: "fabric logs", code: 1},

		// A log, as a fabric that ran leaves it.
		step{do: func() {
			write(t, home, "local/fabric.log", "line 1: starting\nline 2: tenant a ready\nline 3: stopped\n")
		}},
		step{cmd: "fabric logs"},
		step{cmd: "fabric logs --lines 2"},

		// A malformed state file.
		step{do: func() { write(t, home, "local/fabric.json", "{not json") }},
		step{cmd: "fabric status", code: 1},
		step{cmd: "fabric down", code: 1},
		step{cmd: "fabric up", code: 1},

		// A running fabric: the state file names a live process (this one).
		step{do: func() {
			err := local.WriteState(home, local.State{PID: os.Getpid(), URL: "nats://127.0.0.1:4222", Port: 4222, Tenants: []string{"a", "b"},
				Workers: 2, StartedAt: "2001-02-03T04:05:06.000000", LicenseExpires: "2002-02-03", Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
		}},
		step{cmd: "fabric status"},
		step{cmd: "fabric status --json"},
		step{cmd: "fabric up"},
		step{cmd: "fabric up --tenants b,a"},
		step{cmd: "fabric up --tenants a,c", code: 1},
		step{cmd: "fabric up --tenants BAD!", code: 1},
		step{cmd: "fabric up --workers -1", code: 1},
	)
}
