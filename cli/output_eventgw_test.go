package cli

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputEventGateway: the ingestion endpoint commands and
// event-gw-status on two tenants: one with an event gateway (endpoints
// added, listed, shown, disabled, enabled, deleted, a bad one refused, a
// message received and counted) and one without ("No Event gateways
// found").
func TestOutputEventGateway(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.EventGateway}})
	s := newSession(t, "event-endpoint-add", "event-endpoint-get", "event-endpoint-list", "event-endpoint-delete",
		"event-endpoint-enable", "event-endpoint-disable", "event-gw-status")
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := pc.LocalAddr().(*net.UDPAddr).Port
	pc.Close()
	s.sc.Literal(fmt.Sprint(port), "<PORT>").Column("Gateway", "<POD>").Column("Last Event", "<TIME>")
	dir := s.vars["DIR"]
	write(t, dir, "edge.yaml", fmt.Sprintf("name: edge\ndescription: routers of the edge\ntype: syslog_udp_go\naddress: 127.0.0.1\nport: %d\nstream: edge-syslog\n", port))
	write(t, dir, "bad.yaml", "name: bad\ntype: carrier_pigeon\n")
	s.steps(
		step{cmd: "event-gw-status"},
		step{cmd: "event-endpoint add --file $DIR/edge.yaml"},
		step{cmd: "event-endpoint add --file $DIR/edge.yaml", code: 1},
		step{cmd: "event-endpoint add --file $DIR/bad.yaml", code: 1},
		step{cmd: "event-endpoint add", code: 2},
		step{cmd: "event-endpoint list"},
		step{cmd: "event-endpoint list --json"},
		step{cmd: "event-endpoint list --bogus", code: 2},
		step{cmd: "event-endpoint get --name edge"},
		step{cmd: "event-endpoint get --name nope", code: 1},
	)
	waitListening(t, s, "edge")
	conn, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Write([]byte("<14>1 2024-01-01T00:00:00Z r1 app - - - link up"))
	_, _ = conn.Write([]byte("not syslog"))
	conn.Close()
	waitCounted(t, s, 2)
	s.steps(
		step{cmd: "event-gw-status"},
		step{cmd: "event-gw-status --bogus", code: 2},
		step{cmd: "event-endpoint disable --name edge"},
		step{cmd: "event-endpoint disable --name edge"},
		step{cmd: "event-endpoint disable --name nope", code: 1},
		step{cmd: "event-endpoint enable --name edge"},
		step{cmd: "event-endpoint enable --name nope", code: 1},
		step{cmd: "event-endpoint delete --name edge"},
		step{cmd: "event-endpoint delete --name edge", code: 1},
	)
	// Tenant b's gateway stops: it has none.
	for _, id := range f.PodsOf("b", api.EventGateway) {
		if err := f.Runners["b"].StopPod(id); err != nil {
			t.Fatal(err)
		}
	}
	f.UseTenant(t, "b")
	s.steps(step{cmd: "event-gw-status"}, step{cmd: "event-gw-status --json"})
}

// waitListening waits until event-gw-status shows endpoint name listening.
func waitListening(t *testing.T, s *session, name string) {
	t.Helper()
	waitUntil(t, "endpoint "+name+" listening", func() bool {
		out, _, _ := run(t, "", "event-gw-status", "--json")
		return contains(out, `"name": "`+name+`"`) && contains(out, `"state": "listening"`)
	})
}

// waitCounted waits until the gateway counted n messages received.
func waitCounted(t *testing.T, s *session, n int) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d messages received", n), func() bool {
		out, _, _ := run(t, "", "event-gw-status", "--json")
		return contains(out, fmt.Sprintf(`"received": %d`, n))
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 10s waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
