package snmptrap

import (
	"errors"
	"slices"
	"testing"

	"github.com/gosnmp/gosnmp"
)

// marshal encodes p with gosnmp.
func marshal(tb testing.TB, p *gosnmp.SnmpPacket) []byte {
	tb.Helper()
	b, err := p.MarshalMsg()
	if err != nil {
		tb.Fatalf("gosnmp MarshalMsg: %v", err)
	}
	return b
}

func v2cPacket(pdu gosnmp.PDUType, community string, vars ...gosnmp.SnmpPDU) *gosnmp.SnmpPacket {
	return &gosnmp.SnmpPacket{
		Version:   gosnmp.Version2c,
		Community: community,
		PDUType:   pdu,
		RequestID: 4242,
		Variables: vars, // not SnmpTrap.Variables, which marshalling ignores
	}
}

func v1Packet(enterprise, agent string, generic, specific int, ts uint, vars ...gosnmp.SnmpPDU) *gosnmp.SnmpPacket {
	return &gosnmp.SnmpPacket{
		Version:   gosnmp.Version1,
		Community: "public",
		PDUType:   gosnmp.Trap,
		Variables: vars,
		SnmpTrap: gosnmp.SnmpTrap{
			Enterprise:   enterprise,
			AgentAddress: agent,
			GenericTrap:  generic,
			SpecificTrap: specific,
			Timestamp:    ts,
		},
	}
}

func uptime(v uint32) gosnmp.SnmpPDU {
	return gosnmp.SnmpPDU{Name: ".1.3.6.1.2.1.1.3.0", Type: gosnmp.TimeTicks, Value: v}
}

func trapOID(oid string) gosnmp.SnmpPDU {
	return gosnmp.SnmpPDU{Name: ".1.3.6.1.6.3.1.1.4.1.0", Type: gosnmp.ObjectIdentifier, Value: oid}
}

// allTypes are variable bindings of every type gosnmp can marshal, and
// allTypesWant is what Decode must make of them.
var allTypes = []gosnmp.SnmpPDU{
	{Name: ".1.3.6.1.4.1.99999.1.1", Type: gosnmp.Integer, Value: -42},
	{Name: ".1.3.6.1.4.1.99999.1.2", Type: gosnmp.OctetString, Value: "hello world"},
	{Name: ".1.3.6.1.4.1.99999.1.3", Type: gosnmp.OctetString, Value: []byte{0xde, 0xad, 0x00, 0xff}},
	{Name: ".1.3.6.1.4.1.99999.1.4", Type: gosnmp.OctetString, Value: "héllo\n"},
	{Name: ".1.3.6.1.4.1.99999.1.5", Type: gosnmp.OctetString, Value: ""},
	{Name: ".1.3.6.1.4.1.99999.1.6", Type: gosnmp.ObjectIdentifier, Value: ".1.3.6.1.2.1.1.1"},
	{Name: ".1.3.6.1.4.1.99999.1.7", Type: gosnmp.IPAddress, Value: "192.0.2.7"},
	{Name: ".1.3.6.1.4.1.99999.1.8", Type: gosnmp.Counter32, Value: uint32(4294967295)},
	{Name: ".1.3.6.1.4.1.99999.1.9", Type: gosnmp.Gauge32, Value: uint(1000)},
	{Name: ".1.3.6.1.4.1.99999.1.10", Type: gosnmp.TimeTicks, Value: uint32(99)},
	{Name: ".1.3.6.1.4.1.99999.1.11", Type: gosnmp.Counter64, Value: uint64(18446744073709551615)},
	{Name: ".1.3.6.1.4.1.99999.1.12", Type: gosnmp.Uinteger32, Value: uint32(7)},
	{Name: ".1.3.6.1.4.1.99999.1.13", Type: gosnmp.Opaque, Value: []byte{1, 2, 3}},
	{Name: ".1.3.6.1.4.1.99999.1.14", Type: gosnmp.OpaqueFloat, Value: float32(1.5)},
	{Name: ".1.3.6.1.4.1.99999.1.15", Type: gosnmp.OpaqueDouble, Value: float64(2.25)},
	{Name: ".1.3.6.1.4.1.99999.1.16", Type: gosnmp.Null},
	{Name: ".1.3.6.1.4.1.99999.1.17", Type: gosnmp.NoSuchObject},
	{Name: "1.3.6.1.4.1.99999.1.18", Type: gosnmp.Integer, Value: 0},
}

var allTypesWant = []Var{
	{"1.3.6.1.4.1.99999.1.1", "Integer", "-42"},
	{"1.3.6.1.4.1.99999.1.2", "OctetString", "hello world"},
	{"1.3.6.1.4.1.99999.1.3", "OctetString", "0xdead00ff"},
	{"1.3.6.1.4.1.99999.1.4", "OctetString", "héllo\n"},
	{"1.3.6.1.4.1.99999.1.5", "OctetString", ""},
	{"1.3.6.1.4.1.99999.1.6", "ObjectIdentifier", "1.3.6.1.2.1.1.1"},
	{"1.3.6.1.4.1.99999.1.7", "IPAddress", "192.0.2.7"},
	{"1.3.6.1.4.1.99999.1.8", "Counter32", "4294967295"},
	{"1.3.6.1.4.1.99999.1.9", "Gauge32", "1000"},
	{"1.3.6.1.4.1.99999.1.10", "TimeTicks", "99"},
	{"1.3.6.1.4.1.99999.1.11", "Counter64", "18446744073709551615"},
	{"1.3.6.1.4.1.99999.1.12", "Uinteger32", "7"},
	{"1.3.6.1.4.1.99999.1.13", "Opaque", "0x010203"},
	{"1.3.6.1.4.1.99999.1.14", "OpaqueFloat", "1.5"},
	{"1.3.6.1.4.1.99999.1.15", "OpaqueDouble", "2.25"},
	{"1.3.6.1.4.1.99999.1.16", "Null", ""},
	{"1.3.6.1.4.1.99999.1.17", "NoSuchObject", ""},
	{"1.3.6.1.4.1.99999.1.18", "Integer", "0"},
}

// validPackets are the gosnmp-built packets of TestDecodeGosnmp, also
// used by the truncation, mutation and fuzz tests.
func validPackets(tb testing.TB) []struct {
	name   string
	packet []byte
	want   Trap
} {
	ifIndex := gosnmp.SnmpPDU{Name: ".1.3.6.1.2.1.2.2.1.1.2", Type: gosnmp.Integer, Value: 2}
	ifIndexWant := Var{"1.3.6.1.2.1.2.2.1.1.2", "Integer", "2"}
	return []struct {
		name   string
		packet []byte
		want   Trap
	}{{
		name: "v2c trap, all types",
		packet: marshal(tb, v2cPacket(gosnmp.SNMPv2Trap, "public",
			append([]gosnmp.SnmpPDU{uptime(123456), trapOID(".1.3.6.1.4.1.99999.0.1")}, allTypes...)...)),
		want: Trap{Version: "2c", Community: "public", TrapOID: "1.3.6.1.4.1.99999.0.1",
			Uptime: 123456, Vars: allTypesWant},
	}, {
		name: "v2c inform, linkDown",
		packet: marshal(tb, v2cPacket(gosnmp.InformRequest, "s3cret",
			uptime(1), trapOID("1.3.6.1.6.3.1.1.5.3"), ifIndex)),
		want: Trap{Version: "2c", Community: "s3cret", Inform: true, TrapOID: "1.3.6.1.6.3.1.1.5.3",
			Uptime: 1, Vars: []Var{ifIndexWant}},
	}, {
		name: "v2c trap, snmpTrapOID.0 first, no sysUpTime.0, repeated snmpTrapOID.0",
		packet: marshal(tb, v2cPacket(gosnmp.SNMPv2Trap, "",
			trapOID(".1.3.6.1.6.3.1.1.5.1"), ifIndex, trapOID(".1.3.6.1.6.3.1.1.5.2"))),
		want: Trap{Version: "2c", TrapOID: "1.3.6.1.6.3.1.1.5.1", Vars: []Var{ifIndexWant,
			{"1.3.6.1.6.3.1.1.4.1.0", "ObjectIdentifier", "1.3.6.1.6.3.1.1.5.2"}}},
	}, {
		name:   "v1 linkDown",
		packet: marshal(tb, v1Packet(".1.3.6.1.4.1.8072.2.3", "192.0.2.1", 2, 0, 5000, ifIndex)),
		want: Trap{Version: "1", Community: "public", TrapOID: "1.3.6.1.6.3.1.1.5.3",
			Enterprise: "1.3.6.1.4.1.8072.2.3", GenericTrap: 2, AgentAddress: "192.0.2.1",
			Uptime: 5000, Vars: []Var{ifIndexWant}},
	}, {
		name:   "v1 coldStart, no bindings",
		packet: marshal(tb, v1Packet("1.3.6.1.4.1.9", "10.1.2.3", 0, 0, 0)),
		want: Trap{Version: "1", Community: "public", TrapOID: "1.3.6.1.6.3.1.1.5.1",
			Enterprise: "1.3.6.1.4.1.9", AgentAddress: "10.1.2.3"},
	}, {
		name: "v1 enterpriseSpecific, all types",
		packet: marshal(tb, v1Packet(".1.3.6.1.4.1.99999", "203.0.113.9", 6, 17, 4294967295,
			allTypes...)),
		want: Trap{Version: "1", Community: "public", TrapOID: "1.3.6.1.4.1.99999.0.17",
			Enterprise: "1.3.6.1.4.1.99999", GenericTrap: 6, SpecificTrap: 17,
			AgentAddress: "203.0.113.9", Uptime: 4294967295, Vars: allTypesWant},
	}}
}

// equalTrap compares traps, taking nil and empty Vars as equal.
func equalTrap(a, b Trap) bool {
	return a.Version == b.Version && a.Community == b.Community && a.Inform == b.Inform &&
		a.TrapOID == b.TrapOID && a.Enterprise == b.Enterprise && a.GenericTrap == b.GenericTrap &&
		a.SpecificTrap == b.SpecificTrap && a.AgentAddress == b.AgentAddress && a.Uptime == b.Uptime &&
		slices.Equal(a.Vars, b.Vars)
}

func TestDecodeGosnmp(t *testing.T) {
	for _, tc := range validPackets(t) {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.packet)
			if err != nil {
				t.Fatalf("Decode: %v\npacket %x", err, tc.packet)
			}
			if !equalTrap(got, tc.want) {
				t.Errorf("Decode:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	good := marshal(t, v2cPacket(gosnmp.SNMPv2Trap, "public", uptime(5), trapOID("1.3.6.1.6.3.1.1.5.1")))
	v1 := marshal(t, v1Packet("1.3.6.1.4.1.9", "10.1.2.3", 0, 0, 0))
	// v1 with the enterprise sent as an OCTET STRING instead of an OID.
	v1EnterpriseString := slices.Clone(v1)
	if i := slices.Index(v1EnterpriseString, byte(gosnmp.Trap)); i < 0 || v1EnterpriseString[i+2] != 0x06 {
		t.Fatalf("unexpected v1 layout %x", v1)
	} else {
		v1EnterpriseString[i+2] = 0x04
	}
	v2u := slices.Clone(good)
	v2u[4] = 2 // version field: 30 LL 02 01 VV

	tests := []struct {
		name   string
		packet []byte
		want   error
	}{
		{"nil", nil, ErrMalformed},
		{"empty", []byte{}, ErrMalformed},
		{"one byte", []byte{0x30}, ErrMalformed},
		{"not a sequence", []byte("hello, world"), ErrMalformed},
		{"indefinite length", mustHex(t, "3080020101040000"), ErrMalformed},
		{"community is an INTEGER", mustHex(t, "3013020101020100a70b0201010201000201003000"), ErrMalformed},
		{"trailing byte", append(slices.Clone(good), 0), ErrMalformed},
		{"outer length too long", append(slices.Clone(good[:1]), append([]byte{good[1] + 1}, good[2:]...)...), ErrMalformed},
		{"v2c without snmpTrapOID.0", marshal(t, v2cPacket(gosnmp.SNMPv2Trap, "public", uptime(5))), ErrMalformed},
		{"v2c with no bindings", marshal(t, v2cPacket(gosnmp.SNMPv2Trap, "public")), ErrMalformed},
		{"snmpTrapOID.0 not an OID", marshal(t, v2cPacket(gosnmp.SNMPv2Trap, "public", uptime(5),
			gosnmp.SnmpPDU{Name: OIDSnmpTrapOID, Type: gosnmp.OctetString, Value: "linkDown"})), ErrMalformed},
		{"sysUpTime.0 not TimeTicks", marshal(t, v2cPacket(gosnmp.SNMPv2Trap, "public",
			gosnmp.SnmpPDU{Name: OIDSysUpTime, Type: gosnmp.Integer, Value: 5}, trapOID("1.3.6.1.6.3.1.1.5.1"))), ErrMalformed},
		{"v1 generic-trap 7", marshal(t, v1Packet("1.3.6.1.4.1.9", "10.1.2.3", 7, 0, 0)), ErrMalformed},
		{"v1 generic-trap -1", marshal(t, v1Packet("1.3.6.1.4.1.9", "10.1.2.3", -1, 0, 0)), ErrMalformed},
		{"v1 negative specific-trap", marshal(t, v1Packet("1.3.6.1.4.1.9", "10.1.2.3", 6, -1, 0)), ErrMalformed},
		{"v1 enterprise not an OID", v1EnterpriseString, ErrMalformed},
		{"v2c GetRequest", marshal(t, v2cPacket(gosnmp.GetRequest, "public",
			gosnmp.SnmpPDU{Name: OIDSysUpTime, Type: gosnmp.Null})), ErrUnsupported},
		{"v2c GetResponse", marshal(t, v2cPacket(gosnmp.GetResponse, "public", uptime(5))), ErrUnsupported},
		{"v2c Report", marshal(t, v2cPacket(gosnmp.Report, "public", uptime(5))), ErrUnsupported},
		{"v2c message with a v1 Trap-PDU", marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version2c,
			PDUType: gosnmp.Trap, SnmpTrap: gosnmp.SnmpTrap{Enterprise: "1.3.6", AgentAddress: "10.0.0.1"}}), ErrUnsupported},
		{"v1 message with an SNMPv2-Trap-PDU", marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version1,
			PDUType: gosnmp.SNMPv2Trap, Variables: []gosnmp.SnmpPDU{uptime(1),
				trapOID("1.3.6.1.6.3.1.1.5.1")}}), ErrUnsupported},
		{"v1 message with an InformRequest", marshal(t, &gosnmp.SnmpPacket{Version: gosnmp.Version1,
			PDUType: gosnmp.InformRequest, Variables: []gosnmp.SnmpPDU{uptime(1),
				trapOID("1.3.6.1.6.3.1.1.5.1")}}), ErrUnsupported},
		{"version 2 (SNMPv2u)", v2u, ErrUnsupported},
		{"version 3 header only", mustHex(t, "30818a020103301102040906242f"), ErrUnsupported},
		{"version 3 trap (net-snmp)", mustHex(t, capturedV3), ErrUnsupported},
		{"version 2c GetRequest (net-snmp)", mustHex(t, capturedGet), ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.packet)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Decode(%x) = %+v, %v; want an error wrapping %v", tc.packet, got, err, tc.want)
			}
			if !equalTrap(got, Trap{}) {
				t.Errorf("Decode returned %+v with its error; want the zero Trap", got)
			}
			t.Logf("%v", err)
		})
	}
}

// TestDecodeTruncated decodes every proper prefix of valid packets, both
// as is and with the outer length rewritten to match the prefix (so that
// the decoder has to find the truncation inside): each must be an
// ErrMalformed error, never a panic.
func TestDecodeTruncated(t *testing.T) {
	packets := map[string][]byte{}
	for _, tc := range validPackets(t) {
		packets[tc.name] = tc.packet
	}
	for _, tc := range capturedPackets {
		packets[tc.name] = mustHex(t, tc.hex)
	}
	for name, p := range packets {
		t.Run(name, func(t *testing.T) {
			if _, err := Decode(p); err != nil {
				t.Fatalf("full packet: %v", err)
			}
			for n := 0; n < len(p); n++ {
				if _, err := Decode(p[:n]); !errors.Is(err, ErrMalformed) {
					t.Errorf("prefix %d/%d: err = %v, want ErrMalformed", n, len(p), err)
				}
				if n < 2 || p[1] >= 0x80 {
					continue // only short-form outer lengths are rewritten
				}
				q := slices.Clone(p[:n])
				q[1] = byte(n - 2)
				if _, err := Decode(q); !errors.Is(err, ErrMalformed) {
					t.Errorf("prefix %d/%d with outer length %d: err = %v, want ErrMalformed", n, len(p), n-2, err)
				}
			}
		})
	}
}

// checkDecoded checks what must hold of any Decode result.
func checkDecoded(tb testing.TB, packet []byte, tr Trap, err error) {
	tb.Helper()
	if err != nil {
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
			tb.Fatalf("Decode(%x): error %v wraps neither ErrMalformed nor ErrUnsupported", packet, err)
		}
		return
	}
	if tr.Version != "1" && tr.Version != "2c" {
		tb.Fatalf("Decode(%x): Version %q", packet, tr.Version)
	}
	if !isOID(tr.TrapOID) {
		tb.Fatalf("Decode(%x): TrapOID %q is not a dotted OID", packet, tr.TrapOID)
	}
	_ = tr.Severity()
	if txt := tr.Text(); slices.Contains([]byte(txt), '\n') {
		tb.Fatalf("Decode(%x): Text %q has a line break", packet, txt)
	}
}
