package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// eventEndpointFunctions are check_port of the event_endpoint module.
func (e *Env) eventEndpointFunctions() starlark.StringDict {
	return starlark.StringDict{
		"check_port": doc.Builtin("event_endpoint.check_port", `check_port(type, port, site=None)

Asks the tenant's event gateways (of site, when given) whether an
endpoint of type (syslog_udp_go and snmp_trap listen on UDP, the others
on TCP) may take port, and fails with one line when another tenant holds
it on a gateway's host ("port 5514/udp is reserved by another tenant";
whose it is stays hidden). Returns None: port 0 (a free one), no event
gateway, or a free port. event-endpoint add and enable ask first.`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var typ string
				var port int
				var site optString
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "type", &typ, "port", &port, "site?", &site); err != nil {
					return nil, err
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					return nil, c.CheckEndpointPort(ctx, typ, port, string(site))
				})
			}),
	}
}
