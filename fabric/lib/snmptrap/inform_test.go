package snmptrap

import (
	"errors"
	"testing"

	"github.com/gosnmp/gosnmp"
)

// TestInformResponse: an inform is answered with a Response-PDU of its
// request-id, community and bindings, which gosnmp reads back as such; a
// trap or a malformed packet is not answered.
func TestInformResponse(t *testing.T) {
	ifIndex := gosnmp.SnmpPDU{Name: ".1.3.6.1.2.1.2.2.1.1.2", Type: gosnmp.Integer, Value: 2}
	inform := marshal(t, v2cPacket(gosnmp.InformRequest, "s3cret", uptime(1), trapOID("1.3.6.1.6.3.1.1.5.3"), ifIndex))
	out, err := InformResponse(inform)
	if err != nil {
		t.Fatal(err)
	}
	p, err := (&gosnmp.GoSNMP{}).SnmpDecodePacket(out)
	if err != nil {
		t.Fatalf("the response does not decode: %v", err)
	}
	if p.PDUType != gosnmp.GetResponse || p.RequestID != 4242 || p.Community != "s3cret" || p.Version != gosnmp.Version2c ||
		p.Error != gosnmp.NoError || len(p.Variables) != 3 || p.Variables[1].Value != ".1.3.6.1.6.3.1.1.5.3" {
		t.Errorf("response %+v", p)
	}

	trap := marshal(t, v2cPacket(gosnmp.SNMPv2Trap, "public", uptime(1), trapOID("1.3.6.1.6.3.1.1.5.3")))
	if _, err := InformResponse(trap); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a trap: %v, want ErrUnsupported", err)
	}
	if _, err := InformResponse(inform[:len(inform)/2]); !errors.Is(err, ErrMalformed) {
		t.Errorf("half an inform: %v, want ErrMalformed", err)
	}
}
