package eventgw

import (
	"context"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/snmptrap"
)

// listenTraps listens for SNMP traps (v1, v2c; v2c informs are taken as
// traps and answered with their Response-PDU, so that the sender does not
// send them again). A trap of another community than the endpoint's (when
// it names one) is rejected, and an inform of it not answered. Its raw
// input is kept in hex.
func (g *Gateway) listenTraps(ctx context.Context, e *endpoint) error {
	return g.listenUDP(ctx, e, func(source string, data []byte, reply func([]byte)) {
		t, err := snmptrap.Decode(data)
		if err != nil {
			g.rejected(e, source, err, data)
			return
		}
		if e.cfg.Community != "" && t.Community != e.cfg.Community {
			g.rejected(e, source, fmt.Errorf("community %q is not the endpoint's", t.Community), data)
			return
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
		if t.Inform {
			// Answered once the record is on its way to the stream.
			if resp, err := snmptrap.InformResponse(data); err == nil {
				reply(resp)
			}
		}
	})
}
