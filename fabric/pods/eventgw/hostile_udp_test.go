package eventgw_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
	"github.com/gosnmp/gosnmp"
)

// TestHostileUDPBurstDropsCounted: a burst to a UDP syslog or SNMP
// endpoint with a small receive buffer loses datagrams in the kernel;
// event-gw-status counts them (kernel_dropped, and in dropped with what
// the gateway dropped), the count is the socket's drops column of
// /proc/net/udp, and every datagram sent is either received or dropped.
// Tenant b's endpoint is served right after.
func TestHostileUDPBurstDropsCounted(t *testing.T) {
	a, b := twoTenants(t, "")
	bPort := freeUDPPort(t)
	b.add(t, fmt.Sprintf("name: b-udp\ntype: syslog_udp_go\naddress: 127.0.0.1\nport: %d\n", bPort))
	b.waitState(t, "b-udp", "listening")
	trap, _ := (&gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: "public", PDUType: gosnmp.SNMPv2Trap, RequestID: 7,
		Variables: []gosnmp.SnmpPDU{{Name: ".1.3.6.1.2.1.1.3.0", Type: gosnmp.TimeTicks, Value: uint32(1)},
			{Name: ".1.3.6.1.6.3.1.1.4.1.0", Type: gosnmp.ObjectIdentifier, Value: ".1.3.6.1.6.3.1.1.5.1"}}}).MarshalMsg()
	for _, tc := range []struct {
		name, typ string
		datagram  []byte
	}{
		{"burst-syslog", "syslog_udp_go", []byte("<14>1 2024-01-01T00:00:00Z h app - - - " + strings.Repeat("x", 200))},
		{"burst-traps", "snmp_trap", trap},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			port := freeUDPPort(t)
			a.add(t, fmt.Sprintf("name: %s\ntype: %s\naddress: 127.0.0.1\nport: %d\nreceive_buffer_bytes: 4096\n", tc.name, tc.typ, port))
			e := a.waitState(t, tc.name, "listening")
			if e.ReceiveBuffer <= 0 || e.ReceiveBuffer > 64<<10 {
				t.Fatalf("receive buffer %d, want the small one asked for", e.ReceiveBuffer)
			}
			conn, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			sent := int64(0)
			for range 20000 {
				if _, err := conn.Write(tc.datagram); err == nil {
					sent++
				}
			}
			// Every datagram sent is received or dropped once the gateway
			// has read what its buffer held.
			waitFor(t, "every datagram received or dropped", func() bool {
				e, _ = a.status(tc.name)
				return e.Received+e.KernelDropped == sent
			})
			proc, ok := procDrops(t, port)
			if !ok {
				t.Skip("no /proc/net/udp on this host")
			}
			if e.KernelDropped == 0 || e.KernelDropped != proc || e.Dropped != e.GatewayDropped+e.KernelDropped {
				t.Errorf("sent %d: status received %d, kernel_dropped %d, dropped %d; /proc/net/udp drops %d",
					sent, e.Received, e.KernelDropped, e.Dropped, proc)
			}
			t.Logf("sent %d: received %d, dropped by the kernel %d (/proc/net/udp %d), buffer %d bytes", sent, e.Received, e.KernelDropped, proc, e.ReceiveBuffer)
			if took := b.served(t, "udp", fmt.Sprintf("127.0.0.1:%d", bPort), "b-udp", "b after "+tc.typ); took > 5*time.Second {
				t.Errorf("b served in %v", took)
			}
		})
	}
}

// procDrops reads the drops column of the UDP socket bound to port of
// 127.0.0.1 in /proc/net/udp.
func procDrops(t *testing.T, port int) (int64, bool) {
	t.Helper()
	f, err := os.Open("/proc/net/udp")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	local := fmt.Sprintf("0100007F:%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 13 && fields[1] == local {
			n, err := strconv.ParseInt(fields[12], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// TestHostileErrorStreamBytes: lines of 60 KB that are not syslog are
// each kept in the errors stream cut to 4 KB, saying so, and the stream
// is bounded by bytes and age: 300 of them make under 2 MB, not 18;
// tenant b's endpoint is served right after.
func TestHostileErrorStreamBytes(t *testing.T) {
	a, b := twoTenants(t, "")
	aPort, bPort := freeTCPPort(t), freeTCPPort(t)
	a.add(t, fmt.Sprintf("name: garbage\ntype: syslog_tcp_go\naddress: 127.0.0.1\nport: %d\n", aPort))
	b.add(t, fmt.Sprintf("name: b-syslog\ntype: syslog_tcp_go\naddress: 127.0.0.1\nport: %d\n", bPort))
	a.waitState(t, "garbage", "listening")
	b.waitState(t, "b-syslog", "listening")
	const lines, size = 300, 60 << 10
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", aPort), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("g", size-1) + "\n")
	for range lines {
		_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	errs := events(t, a.c, api.StreamGatewayErrors, lines)
	for _, e := range errs[:3] {
		raw, _ := e["raw"].(string)
		if len(raw) != eventgw.ErrorRawMaxBytes || e["truncated"] != true ||
			!strings.Contains(e["error"].(string), fmt.Sprintf("input of %d bytes, cut to its first %d", size-1, eventgw.ErrorRawMaxBytes)) {
			raw = raw[:min(len(raw), 40)]
			e["raw"] = raw
			t.Fatalf("an error record: %v", e)
		}
	}
	st, err := a.c.JetStream().Stream(context.Background(), streams.JetStreamName(api.StreamGatewayErrors))
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Bytes > 2<<20 || info.Config.MaxBytes != eventgw.ErrorStreamMaxBytes || info.Config.MaxAge != eventgw.ErrorStreamMaxAge {
		cfg, _ := json.Marshal(info.Config)
		t.Errorf("errors stream holds %d bytes after %d lines of %d; config %s", info.State.Bytes, lines, size, cfg)
	}
	t.Logf("errors stream: %d bytes for %d lines of %d bytes", info.State.Bytes, lines, size)
	if took := b.served(t, "tcp", fmt.Sprintf("127.0.0.1:%d", bPort), "b-syslog", "b after the garbage"); took > 5*time.Second {
		t.Errorf("b served in %v", took)
	}
}
