package eventgw_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
	"github.com/gosnmp/gosnmp"
)

// gateway starts a fabric with an event gateway and its default
// endpoints and returns a client and the endpoints by name.
func gateway(t *testing.T) (*client.Client, map[string]api.IngestStatus) {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.EventGateway},
		EventGateway: eventgw.Options{Defaults: true, MetricsPeriod: 200 * time.Millisecond, CertDir: t.TempDir()}})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	eps := map[string]api.IngestStatus{}
	waitFor(t, "the default endpoints listening", func() bool {
		gws, err := c.GatewayStatus(context.Background())
		if err != nil || len(gws) != 1 {
			return false
		}
		for _, e := range gws[0].Endpoints {
			if e.State == "listening" {
				eps[e.Name] = e
			}
		}
		return len(eps) == 4
	})
	return c, eps
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 10s waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// events reads a stream's records once it holds n.
func events(t *testing.T, c *client.Client, stream string, n int) []map[string]any {
	t.Helper()
	out := atLeast(t, c, stream, n)
	if len(out) != n {
		t.Fatalf("stream %s holds %d records, want %d: %.2000v", stream, len(out), n, out)
	}
	return out
}

// atLeast reads a stream's records once it holds n or more.
func atLeast(t *testing.T, c *client.Client, stream string, n int) []map[string]any {
	t.Helper()
	var out []map[string]any
	waitFor(t, fmt.Sprintf("%d records in stream %s", n, stream), func() bool {
		out = nil
		_, err := streams.Read(context.Background(), c.JetStream(), stream, streams.ReadOptions{}, func(m streams.Message) error {
			var v map[string]any
			if err := json.Unmarshal(m.Data, &v); err != nil {
				return err
			}
			out = append(out, v)
			return nil
		})
		return err == nil && len(out) >= n
	})
	return out
}

func send(t *testing.T, network, addr string, data []byte) {
	t.Helper()
	conn, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write(data); err != nil {
		t.Fatal(err)
	}
}

// TestGatewayEndpoints: real syslog over TCP (both RFCs, newline-framed
// and octet-counted) and UDP, SNMP v2c and v1 traps and webhook posts
// reach their streams with the right fields; a malformed syslog line, a
// truncated SNMP packet, an oversized webhook body and a non-JSON body
// are counted and kept in the errors stream, and each endpoint goes on
// working after them.
func TestGatewayEndpoints(t *testing.T) {
	c, eps := gateway(t)
	addr := func(name string) string { return fmt.Sprintf("127.0.0.1:%d", eps[name].Port) }

	// Syslog over TCP: two RFCs, two framings, then a bad line, then a
	// good one on the same connection.
	counted := "<165>1 2003-08-24T05:14:15Z host2 app - - - counted"
	send(t, "tcp", addr("syslog-tcp"), []byte(
		"<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - 'su root' failed for lonvick on /dev/pts/8\n"+
			"<13>Feb  5 17:32:18 10.0.0.99 myapp[42]: Use the BFG!\n"+
			fmt.Sprintf("%d %s", len(counted), counted)+
			"no priority here\n"+
			"<14>1 2024-01-02T03:04:05Z after - - - - still working\n"))
	tcp := events(t, c, "syslog-tcp", 4)
	checks := []struct{ host, severity, message, format string }{
		{"mymachine.example.com", "crit", "'su root' failed for lonvick on /dev/pts/8", "rfc5424"},
		{"10.0.0.99", "notice", "Use the BFG!", "rfc3164"},
		{"host2", "notice", "counted", "rfc5424"},
		{"after", "info", "still working", "rfc5424"},
	}
	for i, want := range checks {
		ev := tcp[i]
		if ev["host"] != want.host || ev["severity"] != want.severity || ev["message"] != want.message || ev["format"] != want.format ||
			ev["raw"] == "" || ev["timestamp"] == "" || ev["endpoint"] != "syslog-tcp" || ev["type"] != api.EndpointSyslogTCP {
			t.Errorf("tcp event %d = %v, want %+v", i, ev, want)
		}
	}
	if tcp[0]["timestamp"] != "2003-10-11T22:14:15.003000" || tcp[0]["app_name"] != "su" || tcp[0]["msg_id"] != "ID47" {
		t.Errorf("rfc 5424 fields: %v", tcp[0])
	}
	if tcp[1]["app_name"] != "myapp" || tcp[1]["proc_id"] != "42" {
		t.Errorf("rfc 3164 tag: %v", tcp[1])
	}

	// The system's logger, when there is one, over TCP and UDP.
	udpEvents := 2
	if _, err := exec.LookPath("logger"); err == nil {
		udpEvents++
		run := func(args ...string) {
			if out, err := exec.Command("logger", args...).CombinedOutput(); err != nil {
				t.Fatalf("logger %v: %v %s", args, err, out)
			}
		}
		run("--tcp", "--server", "127.0.0.1", "--port", fmt.Sprint(eps["syslog-tcp"].Port), "--rfc5424", "-p", "user.warning", "-t", "real", "from logger")
		run("--udp", "--server", "127.0.0.1", "--port", fmt.Sprint(eps["syslog-udp"].Port), "--rfc3164", "-p", "local0.err", "-t", "real", "from logger over udp")
		tcp = events(t, c, "syslog-tcp", 5)
		if ev := tcp[4]; ev["message"] != "from logger" || ev["severity"] != "warning" || ev["app_name"] != "real" {
			t.Errorf("logger over tcp: %v", ev)
		}
		udp := events(t, c, "syslog-udp", 1)
		if ev := udp[0]; ev["message"] != "from logger over udp" || ev["severity"] != "err" || ev["facility"] != "local0" {
			t.Errorf("logger over udp: %v", ev)
		}
	}
	// Syslog over UDP: a good datagram, a bad one, a good one.
	send(t, "udp", addr("syslog-udp"), []byte("<11>1 2024-05-06T07:08:09Z udphost app - - - over udp"))
	send(t, "udp", addr("syslog-udp"), []byte("garbage"))
	send(t, "udp", addr("syslog-udp"), []byte("<11>1 2024-05-06T07:08:10Z udphost app - - - after garbage"))

	// SNMP traps: v2c and v1 from gosnmp, and a truncated packet.
	trapper := &gosnmp.GoSNMP{Target: "127.0.0.1", Port: uint16(eps["snmp-traps"].Port), Community: "public", Version: gosnmp.Version2c, Timeout: 2 * time.Second}
	if err := trapper.Connect(); err != nil {
		t.Fatal(err)
	}
	defer trapper.Conn.Close()
	_, err := trapper.SendTrap(gosnmp.SnmpTrap{Variables: []gosnmp.SnmpPDU{
		{Name: ".1.3.6.1.2.1.1.3.0", Type: gosnmp.TimeTicks, Value: uint32(1234)},
		{Name: ".1.3.6.1.6.3.1.1.4.1.0", Type: gosnmp.ObjectIdentifier, Value: ".1.3.6.1.6.3.1.1.5.3"},
		{Name: ".1.3.6.1.2.1.2.2.1.2.2", Type: gosnmp.OctetString, Value: []byte("eth1")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	packet, _ := (&gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: "public", PDUType: gosnmp.SNMPv2Trap, RequestID: 7,
		Variables: []gosnmp.SnmpPDU{{Name: ".1.3.6.1.2.1.1.3.0", Type: gosnmp.TimeTicks, Value: uint32(1)},
			{Name: ".1.3.6.1.6.3.1.1.4.1.0", Type: gosnmp.ObjectIdentifier, Value: ".1.3.6.1.6.3.1.1.5.1"}}}).MarshalMsg()
	send(t, "udp", addr("snmp-traps"), packet[:len(packet)/2])
	send(t, "udp", addr("snmp-traps"), packet)
	nTraps := 2
	// net-snmp's snmptrap, when there is one.
	if _, err := exec.LookPath("snmptrap"); err == nil {
		cmd := exec.Command("snmptrap", "-M", "/dev/null", "-m", "", "-v", "2c", "-c", "public", addr("snmp-traps"), "",
			"1.3.6.1.6.3.1.1.5.4", "1.3.6.1.2.1.2.2.1.2.3", "s", "eth2")
		cmd.Env = append(os.Environ(), "MIBS=", "SNMPCONFPATH="+t.TempDir(), "SNMP_PERSISTENT_DIR="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("snmptrap: %v %s", err, out)
		}
		nTraps++
	}
	// An inform is answered: gosnmp, which sends it again until it gets
	// the response (three times in all here), gets it at once, and the
	// stream holds it once.
	informer := &gosnmp.GoSNMP{Target: "127.0.0.1", Port: uint16(eps["snmp-traps"].Port), Community: "public", Version: gosnmp.Version2c,
		Timeout: time.Second, Retries: 2}
	if err := informer.Connect(); err != nil {
		t.Fatal(err)
	}
	defer informer.Conn.Close()
	if _, err := informer.SendTrap(gosnmp.SnmpTrap{IsInform: true, Variables: []gosnmp.SnmpPDU{
		{Name: ".1.3.6.1.2.1.1.3.0", Type: gosnmp.TimeTicks, Value: uint32(99)},
		{Name: ".1.3.6.1.6.3.1.1.4.1.0", Type: gosnmp.ObjectIdentifier, Value: ".1.3.6.1.6.3.1.1.5.2"},
	}}); err != nil {
		t.Errorf("an inform was not answered: %v", err)
	}
	nTraps++

	// Webhooks: an object, an array, then an oversized body and a body
	// that is not JSON.
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	post := func(body []byte, code int) {
		t.Helper()
		resp, err := hc.Post("https://"+addr("webhook")+"/", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != code {
			t.Errorf("POST %.40s: %d, want %d", body, resp.StatusCode, code)
		}
	}
	post([]byte(`{"message":"disk full","severity":"crit","host":"db1"}`), 200)
	post([]byte(`[{"summary":"a"},{"summary":"b"}]`), 200)
	post(bytes.Repeat([]byte("x"), eventgw.DefaultMaxMessageBytes+10), http.StatusRequestEntityTooLarge)
	post([]byte(`not json`), http.StatusBadRequest)
	post([]byte(`{"message":"after the bad ones"}`), 200)

	udp := events(t, c, "syslog-udp", udpEvents)
	if ev := udp[len(udp)-1]; ev["message"] != "after garbage" || ev["host"] != "udphost" {
		t.Errorf("udp after garbage: %v", ev)
	}
	traps := events(t, c, "snmp-traps", nTraps)
	if ev := traps[0]; ev["trap_oid"] != "1.3.6.1.6.3.1.1.5.3" || ev["severity"] != "warning" || ev["community"] != "public" ||
		ev["vars"].(map[string]any)["1.3.6.1.2.1.2.2.1.2.2"] != "eth1" || ev["host"] != "127.0.0.1" {
		t.Errorf("v2c trap: %v", ev)
	}
	if ev := traps[1]; ev["trap_oid"] != "1.3.6.1.6.3.1.1.5.1" || ev["severity"] != "notice" {
		t.Errorf("coldStart trap after a truncated one: %v", ev)
	}
	if ev := traps[nTraps-1]; ev["trap_oid"] != "1.3.6.1.6.3.1.1.5.2" {
		t.Errorf("the inform (warmStart): %v", ev)
	}
	if nTraps == 4 {
		if ev := traps[2]; ev["trap_oid"] != "1.3.6.1.6.3.1.1.5.4" || ev["vars"].(map[string]any)["1.3.6.1.2.1.2.2.1.2.3"] != "eth2" {
			t.Errorf("net-snmp linkUp trap: %v", ev)
		}
	}
	hooks := events(t, c, "webhook", 4)
	if ev := hooks[0]; ev["message"] != "disk full" || ev["severity"] != "crit" || ev["host"] != "db1" || ev["body"].(map[string]any)["host"] != "db1" {
		t.Errorf("webhook: %v", ev)
	}
	if hooks[1]["message"] != "a" || hooks[2]["message"] != "b" || hooks[3]["message"] != "after the bad ones" {
		t.Errorf("webhook array and after: %v", hooks[1:])
	}

	// The bad inputs: counted, kept as received.
	errs := events(t, c, api.StreamGatewayErrors, 5)
	kinds := map[string]string{}
	for _, e := range errs {
		kinds[e["endpoint"].(string)] += e["error"].(string) + "|"
		if e["raw"] == "" {
			t.Errorf("an error record without its input: %v", e)
		}
	}
	for ep, want := range map[string]string{"syslog-tcp": "PRI", "syslog-udp": "", "snmp-traps": "", "webhook": "over"} {
		if !strings.Contains(kinds[ep], want) || kinds[ep] == "" {
			t.Errorf("errors of %s: %q", ep, kinds[ep])
		}
	}
	gws, err := c.GatewayStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range gws[0].Endpoints {
		if e.Errors == 0 || e.Received != e.Parsed+e.Errors || e.LastEvent == "" || e.State != "listening" {
			t.Errorf("endpoint %s: %+v", e.Name, e)
		}
	}
	// The metrics stream gets each endpoint's counters.
	atLeast(t, c, api.StreamGatewayMetrics, 4)
}

// TestGatewayEndpointChanges: endpoints added, changed (another stream),
// disabled and deleted while the gateway runs take effect without a
// restart; a port another endpoint holds leaves the second one failed,
// with the reason, and the first one working.
func TestGatewayEndpointChanges(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.EventGateway}})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	st, err := c.Data.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	repo := &artifact.Repo{Store: st}
	status := func(name string) (api.IngestStatus, bool) {
		gws, err := c.GatewayStatus(ctx)
		if err != nil || len(gws) != 1 {
			return api.IngestStatus{}, false
		}
		for _, e := range gws[0].Endpoints {
			if e.Name == name {
				return e, true
			}
		}
		return api.IngestStatus{}, false
	}
	gws, err := c.GatewayStatus(ctx)
	if err != nil || len(gws) != 1 || len(gws[0].Endpoints) != 0 {
		t.Fatalf("a gateway without endpoints: %+v %v", gws, err)
	}
	put := func(doc string, overwrite bool) {
		t.Helper()
		if _, err := repo.Add(ctx, artifact.EventEndpoint, []byte(doc), overwrite); err != nil {
			t.Fatal(err)
		}
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	put(fmt.Sprintf("name: edge\ntype: syslog_udp_go\naddress: 127.0.0.1\nport: %d\nstream: first\n", port), false)
	waitFor(t, "endpoint edge listening", func() bool { e, ok := status("edge"); return ok && e.State == "listening" })
	target := fmt.Sprintf("127.0.0.1:%d", port)
	send(t, "udp", target, []byte("<14>1 2024-01-01T00:00:00Z h a - - - one"))
	events(t, c, "first", 1)

	// Changed: the same port, another stream.
	put(fmt.Sprintf("name: edge\ntype: syslog_udp_go\naddress: 127.0.0.1\nport: %d\nstream: second\n", port), true)
	waitFor(t, "endpoint edge into stream second", func() bool { e, ok := status("edge"); return ok && e.Stream == "second" && e.State == "listening" })
	send(t, "udp", target, []byte("<14>1 2024-01-01T00:00:01Z h a - - - two"))
	if ev := events(t, c, "second", 1)[0]; ev["message"] != "two" {
		t.Errorf("after the change: %v", ev)
	}

	// A second endpoint on the same port fails; the first goes on.
	put(fmt.Sprintf("name: clash\ntype: syslog_udp_go\naddress: 127.0.0.1\nport: %d\n", port), false)
	waitFor(t, "endpoint clash failed", func() bool { e, ok := status("clash"); return ok && e.State == "failed" && e.Error != "" })
	send(t, "udp", target, []byte("<14>1 2024-01-01T00:00:02Z h a - - - three"))
	events(t, c, "second", 2)

	// Disabled, then deleted.
	if _, err := repo.SetEnabled(ctx, artifact.EventEndpoint, "edge", false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "endpoint edge disabled", func() bool { e, ok := status("edge"); return ok && e.State == "disabled" })
	if err := repo.Delete(ctx, artifact.EventEndpoint, "edge"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "endpoint edge gone", func() bool { _, ok := status("edge"); return !ok })
	// The port is free now: the failed endpoint is tried again.
	waitForLong(t, "endpoint clash listening once the port is free", func() bool { e, ok := status("clash"); return ok && e.State == "listening" })
}

func waitForLong(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 20s waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort() (int, error) {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port, nil
}
