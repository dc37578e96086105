package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
	"github.com/fabricops/fabric/internal/testutil"
)

// TestHostileEndpointPortCommands: tenant b cannot take the port of
// tenant a's endpoint through the commands: event-endpoint add on it
// exits 1 with one line naming the port and not a (and writes nothing),
// and so does event-endpoint enable of an endpoint b wrote on it behind
// the commands' back (a script's event_endpoint.add, which the gateway
// keeps failed); a's endpoint keeps receiving, and a's own commands on
// its port succeed. The transcript is testdata/hostile-event-endpoint-port.golden.
func TestHostileEndpointPortCommands(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.EventGateway},
		EventGateway: eventgw.Options{RetryFailed: 100 * time.Millisecond, MetricsPeriod: time.Hour}})
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := pc.LocalAddr().(*net.UDPAddr).Port
	pc.Close()
	dir := t.TempDir()
	tr := &transcript{t: t, sc: fabrictest.NewScrubber().Literal(fmt.Sprint(port), "<PORT>").Literal(dir, "$DIR")}
	endpoint := func(name string) string {
		return write(t, dir, name+".yaml", fmt.Sprintf("name: %s\ntype: syslog_udp_go\naddress: 127.0.0.1\nport: %d\nstream: %s\n", name, port, name))
	}
	mine, grab := endpoint("mine"), endpoint("grab")
	reserved := fmt.Sprintf("port %d/udp is reserved by another tenant", port)

	tr.tenant(f, "a")
	tr.run(0, "event-endpoint", "add", "--file", mine)
	waitListening(t, nil, "mine")
	a := connect(t, f, "a")
	sendSyslog(t, port, "before")
	waitMessage(t, a, "mine", "before")

	tr.tenant(f, "b")
	_, errOut := tr.run(1, "event-endpoint", "add", "--file", grab)
	if want := "error: event-endpoint add: " + reserved + "\n"; errOut != want {
		t.Errorf("b's add: stderr %q, want the one line %q", errOut, want)
	}
	tr.run(0, "event-endpoint", "list", "--json")

	// b writes the record behind the commands' back, disabled: enabling
	// it through the command is refused the same way.
	st, err := connect(t, f, "b").Data.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	doc := fmt.Sprintf("name: grab\ntype: syslog_udp_go\naddress: 127.0.0.1\nport: %d\nstream: grab\nenabled: false\n", port)
	if _, err := (&artifact.Repo{Store: st}).Add(context.Background(), artifact.EventEndpoint, []byte(doc), false); err != nil {
		t.Fatal(err)
	}
	_, errOut = tr.run(1, "event-endpoint", "enable", "--name", "grab")
	if want := "error: event-endpoint enable: " + reserved + "\n"; errOut != want {
		t.Errorf("b's enable: stderr %q, want the one line %q", errOut, want)
	}
	if out, _ := tr.run(0, "event-endpoint", "list", "--json"); !strings.Contains(out, `"enabled": false`) {
		t.Errorf("b's endpoint was enabled by a refused enable:\n%s", out)
	}

	// a's endpoint is a's: it receives, and a's commands on its port
	// succeed.
	tr.tenant(f, "a")
	sendSyslog(t, port, "after")
	waitMessage(t, a, "mine", "after")
	tr.run(0, "event-endpoint", "disable", "--name", "mine")
	tr.run(0, "event-endpoint", "enable", "--name", "mine")
	tr.run(0, "event-endpoint", "add", "--file", mine, "--overwrite")
	// The gateway restarts it (or not, when the changes came in one
	// burst): a's messages reach a's stream.
	waitUntil(t, "a's endpoint receiving again", func() bool {
		sendSyslog(t, port, "still a's")
		return hasMessage(a, "mine", "still a's")
	})
	if !t.Failed() {
		testutil.Golden(t, filepath.Join("testdata", "hostile-event-endpoint-port.golden"), tr.b.String(), *update)
	}
}

// connect returns a client of tenant.
func connect(t *testing.T, f *fabrictest.Fabric, tenant string) *client.Client {
	t.Helper()
	c, err := client.Connect(f.Configs[tenant])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// hasMessage reports whether stream holds an event of message text.
func hasMessage(c *client.Client, stream, text string) bool {
	found := false
	_, err := streams.Read(context.Background(), c.JetStream(), stream, streams.ReadOptions{}, func(m streams.Message) error {
		var e api.Event
		if json.Unmarshal(m.Data, &e) == nil && e.Message == text {
			found = true
		}
		return nil
	})
	return err == nil && found
}

// waitMessage waits until stream holds an event of message text.
func waitMessage(t *testing.T, c *client.Client, stream, text string) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%q in stream %s", text, stream), func() bool { return hasMessage(c, stream, text) })
}

// sendSyslog sends one syslog message to the UDP port of 127.0.0.1.
func sendSyslog(t *testing.T, port int, text string) {
	t.Helper()
	conn, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("<14>1 2024-01-01T00:00:00Z r1 app - - - " + text)); err != nil {
		t.Fatal(err)
	}
}

// transcript records command runs of several tenants in one golden file
// of its own (a command's testdata/output transcript belongs to its
// TestOutput test).
type transcript struct {
	t  *testing.T
	sc *fabrictest.Scrubber
	b  strings.Builder
}

// tenant makes the next runs tenant's, and says so in the transcript.
func (tr *transcript) tenant(f *fabrictest.Fabric, name string) {
	f.UseTenant(tr.t, name)
	if tr.b.Len() > 0 {
		tr.b.WriteString("\n")
	}
	fmt.Fprintf(&tr.b, "# tenant %s\n", name)
}

// run runs a command, checks its exit code and records it.
func (tr *transcript) run(want int, args ...string) (string, string) {
	tr.t.Helper()
	out, errOut, code := run(tr.t, "", args...)
	if code != want {
		tr.t.Errorf("client %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", shellJoin(args), code, want, out, errOut)
	}
	fmt.Fprintf(&tr.b, "$ client %s\n%s[stderr]\n%s[exit %d]\n", tr.sc.Scrub(shellJoin(args)), tr.sc.Scrub(withNewline(out)),
		tr.sc.Scrub(withNewline(errOut)), code)
	return out, errOut
}
