// Package snmptrap decodes SNMP traps (SNMPv1 Trap-PDUs, SNMPv2c
// SNMPv2-Trap-PDUs and SNMPv2c InformRequest-PDUs) received as UDP
// datagrams, for the event gateway that turns each trap into a record
// published to a stream, and answers informs (InformResponse).
//
// The package is MIB-less: no MIB is loaded and no OID is translated to a
// name. Every OID (trap OIDs, enterprise OIDs, variable-binding names and
// OID values) is kept as its dotted numeric string, without a leading dot,
// e.g. "1.3.6.1.6.3.1.1.5.3" rather than "IF-MIB::linkDown".
//
// The BER decoding itself is done by github.com/gosnmp/gosnmp; this package
// only classifies the message, checks what a trap needs, and turns the
// result into plain strings. SNMPv3 is not supported, and communities are
// not checked (the caller may check Trap.Community).
package snmptrap

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"

	"github.com/gosnmp/gosnmp"
)

// ErrMalformed is wrapped by the errors Decode returns for a datagram that
// is not a well-formed SNMP message or trap: empty, truncated, trailing
// bytes, bad BER, or a trap missing a field it must have.
var ErrMalformed = errors.New("snmptrap: malformed packet")

// ErrUnsupported is wrapped by the errors Decode returns for a well-formed
// SNMP message that is not something this package decodes: SNMPv3 (or
// another version than 1 and 2c), or a PDU other than a trap or an inform
// (e.g. a GetRequest).
var ErrUnsupported = errors.New("snmptrap: unsupported message")

// Well-known OIDs (dotted, without a leading dot).
const (
	// OIDSysUpTime is sysUpTime.0, the first variable binding of an
	// SNMPv2 trap.
	OIDSysUpTime = "1.3.6.1.2.1.1.3.0"
	// OIDSnmpTrapOID is snmpTrapOID.0, the second variable binding of an
	// SNMPv2 trap, whose value is the trap's identity.
	OIDSnmpTrapOID = "1.3.6.1.6.3.1.1.4.1.0"
	// OIDSnmpTraps is snmpTraps, the prefix of the standard (generic)
	// traps: coldStart is OIDSnmpTraps+".1", ..., egpNeighborLoss ".6".
	OIDSnmpTraps = "1.3.6.1.6.3.1.1.5"
)

// SNMPv1 generic-trap numbers (RFC 1157).
const (
	GenericColdStart             = 0
	GenericWarmStart             = 1
	GenericLinkDown              = 2
	GenericLinkUp                = 3
	GenericAuthenticationFailure = 4
	GenericEgpNeighborLoss       = 5
	GenericEnterpriseSpecific    = 6
)

// Trap is a decoded SNMP trap.
type Trap struct {
	// Version is "1" for an SNMPv1 trap, "2c" for an SNMPv2c trap or
	// inform.
	Version string
	// Community is the community string, as sent (not checked).
	Community string
	// Inform is true for an SNMPv2c InformRequest, which the sender
	// expects to be acknowledged with a Response.
	Inform bool

	// TrapOID is the trap's identity. For v2c it is the value of
	// snmpTrapOID.0. For v1 it is built from the enterprise, generic and
	// specific trap numbers as RFC 3584 section 3.1 says, so that both
	// versions can be filtered alike: OIDSnmpTraps+"."+(generic+1) for
	// generic traps 0-5, enterprise+".0."+specific for
	// enterpriseSpecific(6).
	TrapOID string
	// Enterprise is the v1 enterprise OID ("" for v2c).
	Enterprise string
	// GenericTrap is the v1 generic-trap number (0 for v2c).
	GenericTrap int
	// SpecificTrap is the v1 specific-trap number (0 for v2c).
	SpecificTrap int
	// AgentAddress is the v1 agent-addr, dotted; "" for v2c (the
	// gateway uses the UDP source address) and for a v1 trap whose
	// agent-addr is empty.
	AgentAddress string
	// Uptime is sysUpTime.0 (v2c) or the time-stamp (v1), in hundredths
	// of a second since the agent's (re)initialisation.
	Uptime uint32

	// Vars are the variable bindings in order; for v2c without
	// sysUpTime.0 and snmpTrapOID.0, which are in Uptime and TrapOID.
	Vars []Var
}

// Var is one variable binding.
type Var struct {
	// OID is the binding's name, dotted, without a leading dot.
	OID string
	// Type is the value's type name as gosnmp spells it: Integer,
	// OctetString, ObjectIdentifier, IPAddress, Counter32, Gauge32,
	// TimeTicks, Counter64, Uinteger32, Opaque, OpaqueFloat,
	// OpaqueDouble, Null, NoSuchObject, NoSuchInstance, EndOfMibView,
	// or Unknown for a type gosnmp does not decode.
	Type string
	// Value is the value as text: numbers in decimal; an OctetString as
	// itself when it is printable UTF-8, else as lower-case hex with a
	// "0x" prefix; an Opaque always as hex; OIDs dotted without a leading
	// dot; IP addresses dotted; "" for Null, the exceptions and Unknown.
	Value string
}

// Decode decodes one UDP datagram holding an SNMPv1 or SNMPv2c trap, or
// an SNMPv2c InformRequest.
//
// A truncated or malformed datagram is an error wrapping ErrMalformed; an
// SNMPv3 message or another PDU type is an error wrapping ErrUnsupported.
// Either way the error says what is wrong. Decode never panics. The
// community is not checked. Decode is safe for concurrent use.
//
// For v2c the snmpTrapOID.0 binding (of type ObjectIdentifier) is
// required; it and sysUpTime.0 (of type TimeTicks, optional) are taken
// from wherever they are in the list (RFC 3416 puts them first and
// second), the first occurrence of each.
func Decode(packet []byte) (Trap, error) {
	version, err := peekVersion(packet)
	if err != nil {
		return Trap{}, err
	}
	p, err := unmarshal(packet)
	if err != nil {
		return Trap{}, err
	}
	if p.Version != version {
		// peekVersion and gosnmp read the same bytes; they cannot differ.
		return Trap{}, fmt.Errorf("%w: version %d read as %d", ErrMalformed, version, p.Version)
	}
	switch version {
	case gosnmp.Version1:
		return decodeV1(p)
	default:
		return decodeV2c(p)
	}
}

// unmarshal has gosnmp decode a v1 or v2c message. gosnmp may panic on
// hostile input (it indexes slices by lengths read from the packet), so
// a panic is recovered and reported as ErrMalformed.
func unmarshal(packet []byte) (p *gosnmp.SnmpPacket, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("%w: decoder panic: %v", ErrMalformed, r)
		}
	}()
	// A zero GoSNMP has no logger (gosnmp logs nothing) and no security
	// parameters, which v1 and v2c do not use; a fresh one per call keeps
	// Decode free of shared state.
	x := &gosnmp.GoSNMP{}
	p, err = x.UnmarshalTrap(packet, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if p == nil {
		return nil, fmt.Errorf("%w: no message decoded", ErrMalformed)
	}
	return p, nil
}

// peekVersion reads the message header far enough to tell the SNMP
// version (SEQUENCE { INTEGER version, ... }), so that SNMPv3 and unknown
// versions are reported as ErrUnsupported before gosnmp, which would
// otherwise try to authenticate or decrypt them, sees them. For v1 and
// v2c it also checks that the community is an OCTET STRING, which gosnmp
// does not. Everything else is left to gosnmp.
func peekVersion(b []byte) (gosnmp.SnmpVersion, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: empty packet", ErrMalformed)
	}
	if b[0] != 0x30 {
		return 0, fmt.Errorf("%w: message is not a SEQUENCE (tag 0x%02x)", ErrMalformed, b[0])
	}
	_, i, ok := berLength(b, 1)
	if !ok {
		return 0, fmt.Errorf("%w: bad message length", ErrMalformed)
	}
	if i >= len(b) || b[i] != 0x02 {
		return 0, fmt.Errorf("%w: message does not start with an INTEGER version", ErrMalformed)
	}
	n, i, ok := berLength(b, i+1)
	if !ok || n < 1 || n > 4 || i+n > len(b) {
		return 0, fmt.Errorf("%w: bad version field", ErrMalformed)
	}
	v := int64(int8(b[i])) // sign-extend the first octet
	for _, c := range b[i+1 : i+n] {
		v = v<<8 | int64(c)
	}
	i += n
	switch v {
	case int64(gosnmp.Version1), int64(gosnmp.Version2c):
	case int64(gosnmp.Version3):
		return 0, fmt.Errorf("%w: SNMPv3", ErrUnsupported)
	default:
		return 0, fmt.Errorf("%w: SNMP version number %d", ErrUnsupported, v)
	}
	if i >= len(b) || b[i] != 0x04 {
		return 0, fmt.Errorf("%w: community is not an OCTET STRING", ErrMalformed)
	}
	return gosnmp.SnmpVersion(v), nil
}

// berLength reads the BER definite length at b[i:] and returns it and the
// index of the first content octet.
func berLength(b []byte, i int) (n, next int, ok bool) {
	if i >= len(b) {
		return 0, 0, false
	}
	c := b[i]
	if c < 0x80 {
		return int(c), i + 1, true
	}
	k := int(c & 0x7f)
	if k == 0 || k > 4 || i+1+k > len(b) {
		return 0, 0, false // indefinite form, absurdly long, or truncated
	}
	for _, d := range b[i+1 : i+1+k] {
		n = n<<8 | int(d)
	}
	return n, i + 1 + k, true
}

func decodeV1(p *gosnmp.SnmpPacket) (Trap, error) {
	if p.PDUType != gosnmp.Trap {
		return Trap{}, fmt.Errorf("%w: %s PDU in an SNMPv1 message", ErrUnsupported, p.PDUType)
	}
	t := Trap{
		Version:      "1",
		Community:    p.Community,
		Enterprise:   strings.TrimPrefix(p.Enterprise, "."),
		GenericTrap:  p.GenericTrap,
		SpecificTrap: p.SpecificTrap,
		AgentAddress: p.AgentAddress,
	}
	if !isOID(t.Enterprise) {
		return Trap{}, fmt.Errorf("%w: enterprise %q is not an OBJECT IDENTIFIER", ErrMalformed, p.Enterprise)
	}
	if t.AgentAddress != "" && net.ParseIP(t.AgentAddress) == nil {
		return Trap{}, fmt.Errorf("%w: agent-addr %q is not an IP address", ErrMalformed, t.AgentAddress)
	}
	if p.Timestamp > math.MaxUint32 {
		return Trap{}, fmt.Errorf("%w: time-stamp %d exceeds 32 bits", ErrMalformed, p.Timestamp)
	}
	t.Uptime = uint32(p.Timestamp)
	switch g := t.GenericTrap; {
	case g >= GenericColdStart && g < GenericEnterpriseSpecific:
		t.TrapOID = OIDSnmpTraps + "." + strconv.Itoa(g+1)
	case g == GenericEnterpriseSpecific:
		if t.SpecificTrap < 0 {
			return Trap{}, fmt.Errorf("%w: negative specific-trap %d", ErrMalformed, t.SpecificTrap)
		}
		t.TrapOID = t.Enterprise + ".0." + strconv.Itoa(t.SpecificTrap)
	default:
		return Trap{}, fmt.Errorf("%w: generic-trap %d is not in 0..6", ErrMalformed, g)
	}
	t.Vars = make([]Var, 0, len(p.Variables))
	for _, pdu := range p.Variables {
		name, err := varName(pdu)
		if err != nil {
			return Trap{}, err
		}
		t.Vars = append(t.Vars, toVar(name, pdu))
	}
	return t, nil
}

func decodeV2c(p *gosnmp.SnmpPacket) (Trap, error) {
	if p.PDUType != gosnmp.SNMPv2Trap && p.PDUType != gosnmp.InformRequest {
		return Trap{}, fmt.Errorf("%w: %s PDU in an SNMPv2c message", ErrUnsupported, p.PDUType)
	}
	t := Trap{
		Version:   "2c",
		Community: p.Community,
		Inform:    p.PDUType == gosnmp.InformRequest,
		Vars:      make([]Var, 0, len(p.Variables)),
	}
	haveUptime, haveOID := false, false
	for _, pdu := range p.Variables {
		name, err := varName(pdu)
		if err != nil {
			return Trap{}, err
		}
		switch {
		case name == OIDSysUpTime && !haveUptime:
			v, ok := pdu.Value.(uint32)
			if pdu.Type != gosnmp.TimeTicks || !ok {
				return Trap{}, fmt.Errorf("%w: sysUpTime.0 is %s, not TimeTicks", ErrMalformed, typeName(pdu.Type))
			}
			t.Uptime, haveUptime = v, true
		case name == OIDSnmpTrapOID && !haveOID:
			v, ok := pdu.Value.(string)
			if pdu.Type != gosnmp.ObjectIdentifier || !ok {
				return Trap{}, fmt.Errorf("%w: snmpTrapOID.0 is %s, not ObjectIdentifier", ErrMalformed, typeName(pdu.Type))
			}
			t.TrapOID, haveOID = strings.TrimPrefix(v, "."), true
		default:
			t.Vars = append(t.Vars, toVar(name, pdu))
		}
	}
	if !haveOID {
		return Trap{}, fmt.Errorf("%w: no snmpTrapOID.0 variable binding", ErrMalformed)
	}
	return t, nil
}

// varName returns the binding's name without its leading dot. gosnmp
// takes a name sent as an OCTET STRING for an OID, so it is checked.
func varName(pdu gosnmp.SnmpPDU) (string, error) {
	name := strings.TrimPrefix(pdu.Name, ".")
	if !isOID(name) {
		return "", fmt.Errorf("%w: variable binding name %q is not an OBJECT IDENTIFIER", ErrMalformed, pdu.Name)
	}
	return name, nil
}

// isOID reports whether s is a dotted OID without a leading dot: at least
// two decimal arcs separated by single dots.
func isOID(s string) bool {
	arcs := strings.Split(s, ".")
	if len(arcs) < 2 {
		return false
	}
	for _, a := range arcs {
		if a == "" {
			return false
		}
		for i := 0; i < len(a); i++ {
			if a[i] < '0' || a[i] > '9' {
				return false
			}
		}
	}
	return true
}

// InformResponse returns the Response-PDU that acknowledges the SNMPv2c
// InformRequest packet (RFC 3416 4.2.7: the same version, community,
// request-id and variable bindings, error-status and error-index 0), so
// that the sender stops sending it again. A packet that is not an inform
// is an error, as Decode reports it, or ErrUnsupported.
func InformResponse(packet []byte) ([]byte, error) {
	t, err := Decode(packet)
	if err != nil {
		return nil, err
	}
	if !t.Inform {
		return nil, fmt.Errorf("%w: not an InformRequest", ErrUnsupported)
	}
	p, err := unmarshal(packet)
	if err != nil {
		return nil, err
	}
	resp := &gosnmp.SnmpPacket{
		Version:   p.Version,
		Community: p.Community,
		PDUType:   gosnmp.GetResponse,
		RequestID: p.RequestID,
		Variables: p.Variables,
	}
	out, err := encode(resp)
	if err != nil {
		// A value gosnmp read but cannot write again: the bindings' names
		// with Null values still answer the request-id.
		nulls := make([]gosnmp.SnmpPDU, len(p.Variables))
		for i, v := range p.Variables {
			nulls[i] = gosnmp.SnmpPDU{Name: v.Name, Type: gosnmp.Null}
		}
		resp.Variables = nulls
		out, err = encode(resp)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the inform's response: %v", ErrMalformed, err)
	}
	return out, nil
}

// encode has gosnmp encode a packet, a panic (on values it decoded but
// cannot encode again) reported as an error.
func encode(p *gosnmp.SnmpPacket) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("encoder panic: %v", r)
		}
	}()
	return p.MarshalMsg()
}
