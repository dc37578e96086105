package snmptrap

import (
	"context"
	"encoding/hex"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"
)

// Datagrams captured from net-snmp 5.9.3 (Debian 12) on 127.0.0.1, with
// MIB loading off (options -M /dev/null and -m with an empty argument).
const (
	// A v2c linkDown, from:
	//
	//	snmptrap -v 2c -c public HOST '' 1.3.6.1.6.3.1.1.5.3
	//	  1.3.6.1.2.1.2.2.1.1.2 i 2 1.3.6.1.2.1.2.2.1.2.2 s "eth1"
	capturedV2cLinkDown = "306a02010104067075626c6963a75d020453ef3c2a020100020100304f300f06082b060102010103004303" +
		"4d20463017060a2b06010603010104010006092b0601060301010503300f060a2b06010201020201010202010230" +
		"12060a2b060102010202010202040465746831"
	// A v1 linkDown, from:
	//
	//	snmptrap -v 1 -c public HOST 1.3.6.1.4.1.8072.2.3 192.0.2.1 2 0 ''
	//	  1.3.6.1.2.1.2.2.1.1.2 i 2
	capturedV1LinkDown = "303c02010004067075626c6963a42f06092b06010401bf0802034004c000020102010202010043034d2048" +
		"3011300f060a2b060102010202010102020102"
	// A v2c trap with bindings of several types, from:
	//
	//	snmptrap -v 2c -c public HOST 12345 1.3.6.1.4.1.8072.2.3.0.1
	//	  1.3.6.1.4.1.8072.2.3.2.1 x DEADBEEF00  ....2.2 c 42  ....2.3 a 10.0.0.1
	//	  ....2.4 o 1.3.6.1.2.1  ....2.5 u 7  ....2.6 t 99  ....2.7 C 18446744073709551615
	capturedV2cTypes = "3081d902010104067075626c6963a781cb020454bcd0ea0201000201003081bc300e06082b060102010103" +
		"00430230393019060a2b060106030101040100060b2b06010401bf08020300013014060b2b06010401bf0802" +
		"0302010405deadbeef003010060b2b06010401bf080203020241012a3013060b2b06010401bf080203020340" +
		"040a0000013014060b2b06010401bf080203020406052b060102013010060b2b06010401bf08020302054201" +
		"073010060b2b06010401bf08020302064301633018060b2b06010401bf0802030207460900ffffffffffffffff"
	// A v2c inform, from:
	//
	//	snmpinform -v 2c -c private HOST 777 1.3.6.1.6.3.1.1.5.5
	//	  1.3.6.1.4.1.8072.2.3.2.1 s "héllo wörld"
	capturedV2cInform = "3063020101040770726976617465a6550204116014c90201000201003047300e06082b0601020101030043" +
		"0203093017060a2b06010603010104010006092b0601060301010505301c060b2b06010401bf080203020104" +
		"0d68c3a96c6c6f2077c3b6726c64"
	// An SNMPv3 trap, from:
	//
	//	snmptrap -v 3 -u trapuser -l noAuthNoPriv -e 0x8000000001020304 HOST 12345 1.3.6.1.6.3.1.1.5.1
	capturedV3 = "30818a020103301102040906242f020300ffe3040100020103042230200408800000000102030402010102" +
		"034d221d0408747261707573657204000400304e041180001f8880b83e1e39d25e066b000000000400a73702" +
		"047808c21b0201000201003029300e06082b06010201010300430230393017060a2b06010603010104010006" +
		"092b0601060301010501"
	// A GetRequest, from:
	//
	//	snmpget -v 2c -c public HOST 1.3.6.1.2.1.1.3.0
	capturedGet = "302902010104067075626c6963a01c020403707e3e020100020100300e300c06082b060102010103000500"
)

var capturedPackets = []struct {
	name string
	hex  string
	want Trap
}{{
	name: "net-snmp v2c linkDown",
	hex:  capturedV2cLinkDown,
	want: Trap{Version: "2c", Community: "public", TrapOID: "1.3.6.1.6.3.1.1.5.3", Uptime: 5054534,
		Vars: []Var{
			{"1.3.6.1.2.1.2.2.1.1.2", "Integer", "2"},
			{"1.3.6.1.2.1.2.2.1.2.2", "OctetString", "eth1"},
		}},
}, {
	name: "net-snmp v1 linkDown",
	hex:  capturedV1LinkDown,
	want: Trap{Version: "1", Community: "public", TrapOID: "1.3.6.1.6.3.1.1.5.3",
		Enterprise: "1.3.6.1.4.1.8072.2.3", GenericTrap: 2, AgentAddress: "192.0.2.1", Uptime: 5054536,
		Vars: []Var{{"1.3.6.1.2.1.2.2.1.1.2", "Integer", "2"}}},
}, {
	name: "net-snmp v2c types",
	hex:  capturedV2cTypes,
	want: Trap{Version: "2c", Community: "public", TrapOID: "1.3.6.1.4.1.8072.2.3.0.1", Uptime: 12345,
		Vars: []Var{
			{"1.3.6.1.4.1.8072.2.3.2.1", "OctetString", "0xdeadbeef00"},
			{"1.3.6.1.4.1.8072.2.3.2.2", "Counter32", "42"},
			{"1.3.6.1.4.1.8072.2.3.2.3", "IPAddress", "10.0.0.1"},
			{"1.3.6.1.4.1.8072.2.3.2.4", "ObjectIdentifier", "1.3.6.1.2.1"},
			{"1.3.6.1.4.1.8072.2.3.2.5", "Gauge32", "7"},
			{"1.3.6.1.4.1.8072.2.3.2.6", "TimeTicks", "99"},
			{"1.3.6.1.4.1.8072.2.3.2.7", "Counter64", "18446744073709551615"},
		}},
}, {
	name: "net-snmp v2c inform",
	hex:  capturedV2cInform,
	want: Trap{Version: "2c", Community: "private", Inform: true, TrapOID: "1.3.6.1.6.3.1.1.5.5", Uptime: 777,
		Vars: []Var{{"1.3.6.1.4.1.8072.2.3.2.1", "OctetString", "héllo wörld"}}},
}}

func mustHex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatalf("bad hex: %v", err)
	}
	return b
}

func TestDecodeCaptured(t *testing.T) {
	for _, tc := range capturedPackets {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(mustHex(t, tc.hex))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !equalTrap(got, tc.want) {
				t.Errorf("Decode:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// listenUDP opens a UDP socket on a random port of 127.0.0.1.
func listenUDP(t *testing.T) (*net.UDPConn, int) {
	t.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, conn.LocalAddr().(*net.UDPAddr).Port
}

// readDatagram reads one datagram, waiting at most 5 seconds.
func readDatagram(t *testing.T, conn *net.UDPConn) []byte {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 65536)
	n, _, err := conn.ReadFromUDP(buf)
	if err != nil {
		t.Fatalf("no datagram received: %v", err)
	}
	return buf[:n]
}

// TestNetSNMPSender sends traps with net-snmp's snmptrap command (Debian
// package snmp) and decodes what arrives. It is skipped when snmptrap is
// not on PATH.
func TestNetSNMPSender(t *testing.T) {
	bin, err := exec.LookPath("snmptrap")
	if err != nil {
		t.Skip("snmptrap (net-snmp) is not on PATH")
	}
	conn, port := listenUDP(t)
	target := "127.0.0.1:" + strconv.Itoa(port)
	tests := []struct {
		name       string
		args       []string
		checkTicks bool // false: the uptime is net-snmp's own ('')
		want       Trap
	}{{
		name: "v2c linkDown",
		args: []string{"-v", "2c", "-c", "public", target, "", "1.3.6.1.6.3.1.1.5.3",
			"1.3.6.1.2.1.2.2.1.1.2", "i", "2", "1.3.6.1.2.1.2.2.1.2.2", "s", "eth1"},
		want: Trap{Version: "2c", Community: "public", TrapOID: "1.3.6.1.6.3.1.1.5.3", Vars: []Var{
			{"1.3.6.1.2.1.2.2.1.1.2", "Integer", "2"},
			{"1.3.6.1.2.1.2.2.1.2.2", "OctetString", "eth1"},
		}},
	}, {
		name: "v1 linkDown",
		args: []string{"-v", "1", "-c", "public", target, "1.3.6.1.4.1.8072.2.3", "192.0.2.1", "2", "0", "",
			"1.3.6.1.2.1.2.2.1.1.2", "i", "2"},
		want: Trap{Version: "1", Community: "public", TrapOID: "1.3.6.1.6.3.1.1.5.3",
			Enterprise: "1.3.6.1.4.1.8072.2.3", GenericTrap: 2, AgentAddress: "192.0.2.1",
			Vars: []Var{{"1.3.6.1.2.1.2.2.1.1.2", "Integer", "2"}}},
	}, {
		name: "v1 enterpriseSpecific",
		args: []string{"-v", "1", "-c", "s3cret", target, "1.3.6.1.4.1.8072.2.3", "198.51.100.4", "6", "99", "4242",
			"1.3.6.1.4.1.8072.2.3.2.1", "x", "00FF", "1.3.6.1.4.1.8072.2.3.2.2", "a", "10.9.8.7"},
		checkTicks: true,
		want: Trap{Version: "1", Community: "s3cret", TrapOID: "1.3.6.1.4.1.8072.2.3.0.99",
			Enterprise: "1.3.6.1.4.1.8072.2.3", GenericTrap: 6, SpecificTrap: 99, AgentAddress: "198.51.100.4",
			Uptime: 4242, Vars: []Var{
				{"1.3.6.1.4.1.8072.2.3.2.1", "OctetString", "0x00ff"},
				{"1.3.6.1.4.1.8072.2.3.2.2", "IPAddress", "10.9.8.7"},
			}},
	}, {
		name: "v2c types",
		args: []string{"-v", "2c", "-c", "public", target, "12345", "1.3.6.1.4.1.8072.2.3.0.1",
			"1.3.6.1.4.1.8072.2.3.2.1", "s", "disk full", "1.3.6.1.4.1.8072.2.3.2.2", "c", "42",
			"1.3.6.1.4.1.8072.2.3.2.3", "o", "1.3.6.1.2.1", "1.3.6.1.4.1.8072.2.3.2.4", "C", "5000000000"},
		checkTicks: true,
		want: Trap{Version: "2c", Community: "public", TrapOID: "1.3.6.1.4.1.8072.2.3.0.1", Uptime: 12345,
			Vars: []Var{
				{"1.3.6.1.4.1.8072.2.3.2.1", "OctetString", "disk full"},
				{"1.3.6.1.4.1.8072.2.3.2.2", "Counter32", "42"},
				{"1.3.6.1.4.1.8072.2.3.2.3", "ObjectIdentifier", "1.3.6.1.2.1"},
				{"1.3.6.1.4.1.8072.2.3.2.4", "Counter64", "5000000000"},
			}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			// No MIBs (numeric OIDs only), and no configuration or
			// persistent files from this machine or written to it.
			args := append([]string{"-M", "/dev/null", "-m", ""}, tc.args...)
			cmd := exec.CommandContext(ctx, bin, args...)
			dir := t.TempDir()
			cmd.Env = append(cmd.Environ(), "MIBS=", "MIBDIRS=/dev/null",
				"SNMPCONFPATH="+dir, "SNMP_PERSISTENT_DIR="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("snmptrap %q: %v\n%s", args, err, out)
			}
			packet := readDatagram(t, conn)
			got, err := Decode(packet)
			if err != nil {
				t.Fatalf("Decode(%x): %v", packet, err)
			}
			want := tc.want
			if !tc.checkTicks {
				want.Uptime = got.Uptime
			}
			if !equalTrap(got, want) {
				t.Errorf("Decode(%x):\n got %+v\nwant %+v", packet, got, want)
			}
		})
	}
}

// TestSendTrap sends traps with gosnmp's own sender (GoSNMP.SendTrap) over
// UDP and decodes what arrives.
func TestSendTrap(t *testing.T) {
	conn, port := listenUDP(t)
	ifIndex := gosnmp.SnmpPDU{Name: ".1.3.6.1.2.1.2.2.1.1.7", Type: gosnmp.Integer, Value: 7}
	tests := []struct {
		name    string
		version gosnmp.SnmpVersion
		trap    gosnmp.SnmpTrap
		want    Trap
	}{{
		name:    "v2c authenticationFailure",
		version: gosnmp.Version2c,
		trap: gosnmp.SnmpTrap{Variables: []gosnmp.SnmpPDU{uptime(777),
			trapOID(".1.3.6.1.6.3.1.1.5.5"), ifIndex}},
		want: Trap{Version: "2c", Community: "gw", TrapOID: "1.3.6.1.6.3.1.1.5.5", Uptime: 777,
			Vars: []Var{{"1.3.6.1.2.1.2.2.1.1.7", "Integer", "7"}}},
	}, {
		name:    "v1 linkUp",
		version: gosnmp.Version1,
		trap: gosnmp.SnmpTrap{Enterprise: ".1.3.6.1.4.1.99999", AgentAddress: "192.0.2.55",
			GenericTrap: 3, Timestamp: 31337, Variables: []gosnmp.SnmpPDU{ifIndex}},
		want: Trap{Version: "1", Community: "gw", TrapOID: "1.3.6.1.6.3.1.1.5.4",
			Enterprise: "1.3.6.1.4.1.99999", GenericTrap: 3, AgentAddress: "192.0.2.55", Uptime: 31337,
			Vars: []Var{{"1.3.6.1.2.1.2.2.1.1.7", "Integer", "7"}}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sender := &gosnmp.GoSNMP{Target: "127.0.0.1", Port: uint16(port), Transport: "udp",
				Community: "gw", Version: tc.version, Timeout: 2 * time.Second, MaxOids: gosnmp.MaxOids}
			if err := sender.Connect(); err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer sender.Conn.Close()
			if _, err := sender.SendTrap(tc.trap); err != nil {
				t.Fatalf("SendTrap: %v", err)
			}
			packet := readDatagram(t, conn)
			got, err := Decode(packet)
			if err != nil {
				t.Fatalf("Decode(%x): %v", packet, err)
			}
			if !equalTrap(got, tc.want) {
				t.Errorf("Decode(%x):\n got %+v\nwant %+v", packet, got, tc.want)
			}
		})
	}
}
