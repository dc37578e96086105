package eventgw

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/snmptrap"
)

// listenTraps listens for SNMP traps (v1, v2c; v2c informs are taken as
// traps and not answered). A trap of another community than the
// endpoint's (when it names one) is rejected. Its raw input is kept in
// hex.
func (g *Gateway) listenTraps(ctx context.Context, e *endpoint) error {
	pc, err := net.ListenPacket("udp", net.JoinHostPort(e.cfg.Address, strconv.Itoa(e.cfg.Port)))
	if err != nil {
		return err
	}
	e.addr, e.port = pc.LocalAddr().String(), pc.LocalAddr().(*net.UDPAddr).Port
	e.closer = func() { pc.Close() }
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		buf := make([]byte, e.cfg.MaxMessageBytes+1)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			e.received.Add(1)
			source := from.String()
			data := append([]byte(nil), buf[:n]...)
			if n > e.cfg.MaxMessageBytes {
				g.rejected(e, source, fmt.Errorf("a datagram over %d bytes", e.cfg.MaxMessageBytes), data)
				continue
			}
			t, err := snmptrap.Decode(data)
			if err != nil {
				g.rejected(e, source, err, data)
				continue
			}
			if e.cfg.Community != "" && t.Community != e.cfg.Community {
				g.rejected(e, source, fmt.Errorf("community %q is not the endpoint's", t.Community), data)
				continue
			}
			e.parsed.Add(1)
			now := time.Now()
			ev := &api.Event{Timestamp: api.Timestamp(now), Received: api.Timestamp(now), Endpoint: e.cfg.Name, Type: e.cfg.Type,
				Source: source, Host: hostOf(source), Severity: t.Severity(), Message: t.Text(), Raw: fmt.Sprintf("%x", data),
				TrapOID: t.TrapOID, Community: t.Community, Vars: map[string]string{}}
			if t.AgentAddress != "" && t.AgentAddress != "0.0.0.0" {
				ev.Host = t.AgentAddress
			}
			for _, v := range t.Vars {
				ev.Vars[v.OID] = v.Value
			}
			e.publish(ctx, ev, false)
		}
	}()
	return nil
}
