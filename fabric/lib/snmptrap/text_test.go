package snmptrap

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gosnmp/gosnmp"
)

func TestSeverity(t *testing.T) {
	v1 := func(generic, specific int) Trap {
		p := marshal(t, v1Packet("1.3.6.1.4.1.9", "10.0.0.1", generic, specific, 0))
		tr, err := Decode(p)
		if err != nil {
			t.Fatalf("Decode v1 generic %d: %v", generic, err)
		}
		return tr
	}
	tests := []struct {
		name string
		trap Trap
		want string
	}{
		{"v2c coldStart", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.1"}, "notice"},
		{"v2c warmStart", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.2"}, "notice"},
		{"v2c linkDown", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.3"}, "warning"},
		{"v2c linkUp", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.4"}, "notice"},
		{"v2c authenticationFailure", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.5"}, "warning"},
		{"v2c egpNeighborLoss", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.6"}, "info"},
		{"v2c enterprise", Trap{TrapOID: "1.3.6.1.4.1.8072.2.3.0.1"}, "info"},
		{"v2c prefix of linkDown", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.30"}, "info"},
		{"empty", Trap{}, "info"},
		{"v1 coldStart", v1(0, 0), "notice"},
		{"v1 warmStart", v1(1, 0), "notice"},
		{"v1 linkDown", v1(2, 0), "warning"},
		{"v1 linkUp", v1(3, 0), "notice"},
		{"v1 authenticationFailure", v1(4, 0), "warning"},
		{"v1 egpNeighborLoss", v1(5, 0), "info"},
		{"v1 enterpriseSpecific 2", v1(6, 2), "info"},
		{"v1 enterpriseSpecific 4", v1(6, 4), "info"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.trap.Severity(); got != tc.want {
				t.Errorf("Severity() of TrapOID %q = %q, want %q", tc.trap.TrapOID, got, tc.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name string
		trap Trap
		want string
	}{
		{"no bindings", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.1"}, "1.3.6.1.6.3.1.1.5.1"},
		{"plain values", Trap{TrapOID: "1.3.6.1.6.3.1.1.5.3", Vars: []Var{
			{"1.3.6.1.2.1.2.2.1.1.2", "Integer", "2"},
			{"1.3.6.1.2.1.2.2.1.2.2", "OctetString", "eth1"},
			{"1.3.6.1.4.1.9.1", "OctetString", "0xdead"},
			{"1.3.6.1.4.1.9.2", "OctetString", "héllo"},
		}}, "1.3.6.1.6.3.1.1.5.3 1.3.6.1.2.1.2.2.1.1.2=2 1.3.6.1.2.1.2.2.1.2.2=eth1 1.3.6.1.4.1.9.1=0xdead 1.3.6.1.4.1.9.2=héllo"},
		{"quoted values", Trap{TrapOID: "1.3.6.1.4.1.9.0.1", Vars: []Var{
			{"1.3.6.1.4.1.9.1", "OctetString", "disk full"},
			{"1.3.6.1.4.1.9.2", "Null", ""},
			{"1.3.6.1.4.1.9.3", "OctetString", "line\nbreak"},
			{"1.3.6.1.4.1.9.4", "OctetString", `a="b"`},
		}}, `1.3.6.1.4.1.9.0.1 1.3.6.1.4.1.9.1="disk full" 1.3.6.1.4.1.9.2="" 1.3.6.1.4.1.9.3="line\nbreak" 1.3.6.1.4.1.9.4="a=\"b\""`},
		{"captured v2c", mustDecode(t, capturedV2cLinkDown),
			"1.3.6.1.6.3.1.1.5.3 1.3.6.1.2.1.2.2.1.1.2=2 1.3.6.1.2.1.2.2.1.2.2=eth1"},
		{"captured inform", mustDecode(t, capturedV2cInform),
			`1.3.6.1.6.3.1.1.5.5 1.3.6.1.4.1.8072.2.3.2.1="héllo wörld"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.trap.Text(); got != tc.want {
				t.Errorf("Text()\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func mustDecode(tb testing.TB, hexPacket string) Trap {
	tb.Helper()
	tr, err := Decode(mustHex(tb, hexPacket))
	if err != nil {
		tb.Fatalf("Decode: %v", err)
	}
	return tr
}

// TestDecodeRandom decodes deterministic pseudo-random input: random
// bytes (which must be rejected), random bytes behind a plausible
// header, and valid packets with a few bytes changed. None may panic.
func TestDecodeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var seeds [][]byte
	for _, tc := range validPackets(t) {
		seeds = append(seeds, tc.packet)
	}
	for _, tc := range capturedPackets {
		seeds = append(seeds, mustHex(t, tc.hex))
	}
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	for i := 0; i < 20000; i++ {
		b := randBytes(rng.IntN(300))
		if tr, err := Decode(b); err == nil {
			t.Fatalf("Decode(random %x) = %+v, want an error", b, tr)
		}
	}
	for i := 0; i < 20000; i++ {
		// SEQUENCE, right length, version 1, community "", then noise.
		body := append([]byte{0x02, 0x01, 0x01, 0x04, 0x00}, randBytes(rng.IntN(120))...)
		b := append([]byte{0x30, byte(len(body))}, body...)
		tr, err := Decode(b)
		checkDecoded(t, b, tr, err)
	}
	accepted := 0
	for i := 0; i < 50000; i++ {
		b := slices.Clone(seeds[rng.IntN(len(seeds))])
		for range 1 + rng.IntN(3) {
			b[rng.IntN(len(b))] = byte(rng.Uint32())
		}
		tr, err := Decode(b)
		checkDecoded(t, b, tr, err)
		if err == nil {
			accepted++
		}
	}
	t.Logf("%d of 50000 mutated packets decoded", accepted)
}

// FuzzDecode checks that Decode never panics, that its errors wrap
// ErrMalformed or ErrUnsupported, and that a decoded trap has Version "1"
// or "2c" and a dotted TrapOID.
func FuzzDecode(f *testing.F) {
	for _, tc := range validPackets(f) {
		f.Add(tc.packet)
	}
	for _, tc := range capturedPackets {
		f.Add(mustHex(f, tc.hex))
	}
	f.Add(mustHex(f, capturedV3))
	f.Add(mustHex(f, capturedGet))
	f.Add(marshal(f, v2cPacket(gosnmp.SNMPv2Trap, "public", uptime(1))))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, packet []byte) {
		tr, err := Decode(packet)
		checkDecoded(t, packet, tr, err)
		// An accepted inform gets a response that decodes as one.
		resp, rerr := InformResponse(packet)
		if err == nil && tr.Inform {
			if rerr != nil {
				t.Fatalf("inform %x: no response: %v", packet, rerr)
			}
			if p, err := (&gosnmp.GoSNMP{}).SnmpDecodePacket(resp); err != nil || p.PDUType != gosnmp.GetResponse {
				t.Fatalf("inform %x: response %x does not decode as one: %v", packet, resp, err)
			}
		} else if rerr == nil {
			t.Fatalf("%x is no accepted inform, yet answered", packet)
		}
	})
}
