package snmptrap

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gosnmp/gosnmp"
)

// Severity names returned by Trap.Severity, as in syslog.
const (
	SeverityWarning = "warning"
	SeverityNotice  = "notice"
	SeverityInfo    = "info"
)

// Severity maps the trap to a syslog-like severity name for the gateway's
// records: SeverityWarning for linkDown and authenticationFailure,
// SeverityNotice for coldStart, warmStart and linkUp, SeverityInfo for
// anything else. It looks only at TrapOID, which for v1 is built from the
// generic trap number (generic traps 2 and 4 are
// 1.3.6.1.6.3.1.1.5.3 and 1.3.6.1.6.3.1.1.5.5), so both versions map
// alike.
func (t Trap) Severity() string {
	switch t.TrapOID {
	case OIDSnmpTraps + ".3", OIDSnmpTraps + ".5": // linkDown, authenticationFailure
		return SeverityWarning
	case OIDSnmpTraps + ".1", OIDSnmpTraps + ".2", OIDSnmpTraps + ".4": // coldStart, warmStart, linkUp
		return SeverityNotice
	default:
		return SeverityInfo
	}
}

// Text is a one-line summary for a record's message: the trap OID, then
// each variable binding as OID=value, separated by single spaces. A value
// that is empty or holds a space, a quote, an '=' or a character that is
// not printable is written as a Go-quoted string, so the line stays one
// line and can be split unambiguously.
func (t Trap) Text() string {
	var b strings.Builder
	b.WriteString(t.TrapOID)
	for _, v := range t.Vars {
		b.WriteByte(' ')
		b.WriteString(v.OID)
		b.WriteByte('=')
		b.WriteString(quoteIfNeeded(v.Value))
	}
	return b.String()
}

func quoteIfNeeded(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r == ' ' || r == '"' || r == '=' || r == '\\' || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// toVar turns a gosnmp variable binding, whose checked name is oid, into
// a Var.
func toVar(oid string, pdu gosnmp.SnmpPDU) Var {
	return Var{
		OID:   oid,
		Type:  typeName(pdu.Type),
		Value: formatValue(pdu),
	}
}

// typeName is gosnmp's name for a value type. gosnmp reports a value
// whose tag it does not know, or whose number overflows its type, as type
// 0 with no value; that is "Unknown".
func typeName(t gosnmp.Asn1BER) string {
	if t == gosnmp.UnknownType {
		return "Unknown"
	}
	return t.String()
}

// formatValue renders a decoded value as text (see Var.Value).
func formatValue(pdu gosnmp.SnmpPDU) string {
	switch v := pdu.Value.(type) {
	case nil:
		return ""
	case []byte:
		if pdu.Type == gosnmp.OctetString && isText(v) {
			return string(v)
		}
		return "0x" + hex.EncodeToString(v)
	case string:
		if pdu.Type == gosnmp.ObjectIdentifier {
			return strings.TrimPrefix(v, ".")
		}
		return v
	case int:
		return strconv.Itoa(v)
	case uint:
		return strconv.FormatUint(uint64(v), 10)
	case uint32:
		return strconv.FormatUint(uint64(v), 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	default:
		// Not produced by gosnmp v1.47.0's decoder; kept readable anyway.
		return fmt.Sprint(v)
	}
}

// isText reports whether b is valid UTF-8 made of graphic characters
// (printable ones and spaces), tabs and line breaks (a device's
// description may end with a newline).
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsGraphic(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}
