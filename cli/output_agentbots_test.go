package cli

import (
	"fmt"
	"net"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputAgentBots: the bots of agents and workers: agent-bots lists
// the gateway's; invoke-agent-bot runs them (what the gateway received,
// filtered by the agent; syslog lines of a CSV parsed, to a table and to
// a CSV file); bots-by-source (a bot package's bots under its configured
// source too) and check-credentials run on a worker (start response, then
// the table); and the errors of each.
func TestOutputAgentBots(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker, api.EventGateway}})
	s := newSession(t, "agent-bots", "invoke-agent-bot", "bots-by-source", "check-credentials")
	port := fabrictest.Ports(t, "tcp", 1)[0]
	s.sc.Literal(fmt.Sprint(port), "<PORT>").Column("Pod ID", "<ID>").Column("Duration (ms)", "<MS>")
	dir := s.vars["DIR"]
	write(t, dir, "edge.yaml", fmt.Sprintf("name: edge\ntype: syslog_tcp_go\naddress: 127.0.0.1\nport: %d\nstream: edge-syslog\n", port))
	write(t, dir, "lines.csv", "raw\n\"<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8\"\n"+
		"\"<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"\"3\"\"] An application event\"\n"+
		"not syslog at all\n")
	write(t, dir, "nocol.csv", "line\nx\n")
	write(t, dir, "sources.yaml", "sources:\n  edge-syslog: {type: stream}\n  db-password: {type: secret}\n"+
		"  api:\n    name: edge-syslog\n    type: stream\n    token: {$secret: nope}\n  hosts: {type: dataset}\n  hosts.csv: {type: files}\n  ../etc/passwd: {type: files}\n  vcenter: {type: vmware_vcenter, hostname: vc1}\n")
	write(t, dir, "acme-api.yaml", "hostname: 127.0.0.1\nport: 8080\nsecret: hunter2-token\n")
	write(t, dir, "ok.json", `[{"name": "edge-syslog", "type": "stream", "password": {"$secret": "db-password"}}]`)
	write(t, dir, "text.pipeline", "@dm:empty\n")
	write(t, dir, "nosources.yaml", "name: p\ndata: {sequence: []}\n")
	s.steps(
		step{cmd: "event-endpoint add --file $DIR/edge.yaml", setup: true},
		step{cmd: "secret add --name db-password --value hunter2", setup: true},
	)
	waitListening(t, s, "edge")
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{
		"<11>1 2024-01-01T00:00:00Z r1 disk - - - disk 1 failing\n",
		"<14>1 2024-01-01T00:00:01Z r2 link - - - link up\n",
		"<11>1 2024-01-01T00:00:02Z r1 disk - - - disk 2 failing\n",
	} {
		_, _ = conn.Write([]byte(m))
	}
	conn.Close()
	waitCounted(t, s, 3)
	s.steps(
		step{cmd: "agent-bots"},
		step{cmd: "agent-bots --group local --json"},
		step{cmd: "agent-bots --group elsewhere"},
		step{cmd: "agent-bots --type printer", code: 2},

		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot recent-events"},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot recent-events --query \"severity is 'err' and host is 'r1'\""},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot recent-events --query \"host is 'nobody'\""},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot parse-syslog --input $DIR/lines.csv"},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot parse-syslog --input $DIR/lines.csv --output $DIR/out/parsed.csv"},
		step{cat: "$DIR/out/parsed.csv", key: "invoke-agent-bot"},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot parse-syslog", code: 1},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot parse-syslog --input $DIR/nocol.csv", code: 1},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot parse-syslog --input $DIR/none.csv", code: 1},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot teleport", code: 1},
		step{cmd: "invoke-agent-bot --type event-gateway --group local --bot recent-events --query 'severity is'", code: 1},
		step{cmd: "invoke-agent-bot --type event-gateway --group elsewhere --bot recent-events", code: 1},
		step{cmd: "invoke-agent-bot --type event-gateway --bot recent-events", code: 2},

		step{cmd: "bot-package generate --namespace acme --name acme-bots --bots 2 --output_dir $DIR/acme",
			stdin: "items\nsource\n1\nquery\ntext\nno\nenrich\ntransform\n0\n", setup: true},
		step{cmd: "bot-package add --dir $DIR/acme", setup: true},
		step{cmd: "bot-package add-source --name acme-api --package acme-bots --config $DIR/acme-api.yaml", setup: true},
		step{cmd: "bots-by-source --sources acme-api"},
		// A table is fitted to the terminal (here $COLUMNS, as when
		// stdout is not a terminal): long descriptions cut with an
		// ellipsis; --json keeps them whole.
		step{do: func() { t.Setenv("COLUMNS", "120") }},
		step{cmd: "bots-by-source --sources stream,logarchive"},
		step{cmd: "bots-by-source --sources stream --json"},
		step{do: func() { t.Setenv("COLUMNS", "1000") }},
		step{cmd: "bots-by-source --sources files --site local --json"},
		step{cmd: "bots-by-source --sources nothing"},
		step{cmd: "bots-by-source --site nowhere", code: 1},
		step{cmd: "bots-by-source --rfilter 'cpu_count >>> 4'", code: 1},

		step{cmd: "check-credentials --config $DIR/ok.json"},
		step{cmd: "check-credentials --config $DIR/sources.yaml --site local", code: 1},
		step{cmd: "check-credentials --config $DIR/text.pipeline", code: 1},
		step{cmd: "check-credentials --config $DIR/nosources.yaml", code: 1},
		step{cmd: "check-credentials --config $DIR/none.yaml", code: 1},
		step{cmd: "check-credentials", code: 2},
	)
}
