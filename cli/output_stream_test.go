package cli

import (
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputStreams: the persistent stream commands on two tenants: the
// system streams, adding, writing JSON lines, CSV and standard input
// (a malformed input writes nothing), reading all, some, from a time,
// as JSON; a pipeline that reads one stream and writes another; deletes
// that ask and a system stream that cannot go; and a second tenant that
// sees none of the first's streams.
func TestOutputStreams(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	s := newSession(t, "pstream-add", "pstream-get", "pstream-list", "pstream-delete", "write-stream", "read-stream", "watch")
	dir := s.vars["DIR"]
	write(t, dir, "ev.jsonl", `{"host":"r1","sev":3,"msg":"link up"}`+"\n"+`{"host":"r2","sev":5,"msg":"link down","tags":["wan"]}`+"\n")
	write(t, dir, "rows.csv", "host,sev,msg\nsw1,4,fan fail\nsw2,2,ok\n")
	write(t, dir, "bad.jsonl", `{"host":"r3"}`+"\n"+`[1,2]`+"\n")
	write(t, dir, "copy.yaml", `name: stream-copy
version: 2026_11_25_1
data:
  sequence:
    - tag: "@dm:read-stream"
      query: "name = 'ev'"
    - tag: "*dm:filter"
      query: "sev >= 4"
    - tag: "@dm:write-stream"
      query: "name = 'alerts'"
`)

	s.steps(
		step{cmd: "pstream list"},
		step{cmd: "pstream list --bogus", code: 2},
		step{cmd: "watch changes --timeout 0.5"},
		step{cmd: "watch trace --timeout 0.5"},
		step{cmd: "watch everything", code: 2},
		step{cmd: "pstream add --name ev --retention-hours 72 --max-size-mb 10 --description 'edge events'"},
		step{cmd: "pstream add --name ev", code: 1},
		step{cmd: "pstream add --name 'a b'", code: 1},
		// What NATS and JetStream refuse in a name is refused at once.
		step{cmd: "pstream add --name '>'", code: 1},
		step{cmd: "pstream add --name a.b", code: 1},
		step{cmd: "pstream add --name x --retention-hours -1", code: 1},
		step{cmd: "pstream add", code: 2},
		step{cmd: "write-stream --name ev --file $DIR/ev.jsonl"},
		step{cmd: "write-stream --name ev --file $DIR/rows.csv"},
		// The fabric's own streams are read, never written by users.
		step{cmd: "write-stream --name fabric_deployment_updates --file $DIR/ev.jsonl", code: 1},
		step{cmd: "write-stream --name ev", stdin: `{"host":"r9","sev":1,"msg":"from stdin"}` + "\n"},
		step{cmd: "write-stream --name ev --file $DIR/bad.jsonl", code: 1},
		step{cmd: "write-stream --name ev --file $DIR/none.jsonl", code: 1},
		step{cmd: "write-stream --name nope --file $DIR/ev.jsonl", code: 1},
		step{cmd: "read-stream --name ev"},
		step{cmd: "read-stream --name ev --json --max_rows 2"},
		step{cmd: "read-stream --name ev --from 2999-01-01"},
		step{cmd: "read-stream --name ev --from yesterday", code: 1},
		step{cmd: "read-stream --name nope", code: 1},
		step{cmd: "pstream add --name alerts"},
		step{cmd: "run-get-output --file $DIR/copy.yaml", setup: true},
		step{cmd: "read-stream --name alerts"},
		step{cmd: "pstream list --json"},
		step{cmd: "pstream get --name ev"},
		step{cmd: "pstream get --name nope", code: 1},
		step{cmd: "pstream delete --name fabric_gateway_errors", code: 1},
		step{cmd: "pstream delete --name ev", stdin: "n\n"},
		step{cmd: "pstream delete --name ev --confirm"},
		step{cmd: "pstream delete --name ev --confirm", code: 1},
	)
	// The second tenant has streams of its own: the system ones only.
	f.UseTenant(t, "b")
	s.steps(
		step{cmd: "pstream list"},
		step{cmd: "read-stream --name alerts", code: 1},
	)
}
