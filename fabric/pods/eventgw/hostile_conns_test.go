package eventgw_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestHostileIdleConnections: tenant a opens many idle connections to
// its syslog and webhook endpoints. Past the endpoint's cap each new one
// is refused with one line naming the cap and counted (refused in
// event-gw-status); the held ones are closed once idle for the timeout;
// tenant b's endpoint answers all along within its normal time.
func TestHostileIdleConnections(t *testing.T) {
	a, b := twoTenants(t, "")
	bPort := freeTCPPort(t)
	b.add(t, fmt.Sprintf("name: b-syslog\ntype: syslog_tcp_go\naddress: 127.0.0.1\nport: %d\n", bPort))
	b.waitState(t, "b-syslog", "listening")
	bAddr := fmt.Sprintf("127.0.0.1:%d", bPort)

	const most, attempts = 20, 80
	for _, tc := range []struct {
		name, typ, extra, refusal string
	}{
		{"flood-syslog", "syslog_tcp_go", "", "fabric: connection refused: too many connections: endpoint flood-syslog holds 20, the most allowed"},
		{"flood-webhook", "webhook", "protocol: http\n", "HTTP/1.1 503 Service Unavailable"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			port := freeTCPPort(t)
			a.add(t, fmt.Sprintf("name: %s\ntype: %s\naddress: 127.0.0.1\nport: %d\nmax_connections: %d\nidle_timeout_seconds: 2\n%s",
				tc.name, tc.typ, port, most, tc.extra))
			a.waitState(t, tc.name, "listening")
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for range attempts {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, c)
			}
			// Every connection past the cap is told why and closed; the
			// held ones hear nothing until their idle timeout closes them.
			refused, closedIdle := 0, 0
			start := time.Now()
			for i, c := range conns {
				_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
				line, err := bufio.NewReader(c).ReadString('\n')
				switch {
				case strings.HasPrefix(line, tc.refusal):
					refused++
				case line == "" && err == io.EOF:
					closedIdle++
				default:
					t.Fatalf("connection %d: %q %v", i, line, err)
				}
			}
			if refused != attempts-most || closedIdle != most {
				t.Errorf("%d refused and %d closed when idle, want %d and %d", refused, closedIdle, attempts-most, most)
			}
			if took := time.Since(start); took > 9*time.Second {
				t.Errorf("idle connections closed after %v, want about 2s", took)
			}
			waitFor(t, "the refused connections counted", func() bool {
				e, _ := a.status(tc.name)
				return e.Refused == attempts-most && e.Connections == 0
			})
			// b is served at once, a's endpoint too once the flood is over.
			if took := b.served(t, "tcp", bAddr, "b-syslog", "b after "+tc.typ); took > 5*time.Second {
				t.Errorf("b served in %v", took)
			}
		})
	}
}

// TestHostileConnectionsHeldWhileOthersServed: while tenant a holds its
// endpoint's every connection, b's endpoint takes new connections and
// its messages reach its stream within the normal time.
func TestHostileConnectionsHeldWhileOthersServed(t *testing.T) {
	a, b := twoTenants(t, "")
	aPort, bPort := freeTCPPort(t), freeTCPPort(t)
	a.add(t, fmt.Sprintf("name: flood\ntype: syslog_tcp_go\naddress: 127.0.0.1\nport: %d\nmax_connections: 10\n", aPort))
	b.add(t, fmt.Sprintf("name: b-syslog\ntype: syslog_tcp_go\naddress: 127.0.0.1\nport: %d\n", bPort))
	a.waitState(t, "flood", "listening")
	b.waitState(t, "b-syslog", "listening")
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range 200 {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", aPort), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	waitFor(t, "a's connections past the cap refused", func() bool {
		e, _ := a.status("flood")
		return e.Refused == 190 && e.Connections == 10
	})
	for i := range 5 {
		if took := b.served(t, "tcp", fmt.Sprintf("127.0.0.1:%d", bPort), "b-syslog", fmt.Sprint("b ", i)); took > 5*time.Second {
			t.Errorf("b served in %v while a holds its connections", took)
		}
	}
}
