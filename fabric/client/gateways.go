package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
)

// GatewayStatus returns every live event gateway with its endpoints and
// their counters (event-gw-status), by pod id, endpoints by name; none
// when the tenant has no gateway. The api-server asks the gateways, in
// one request.
func (c *Client) GatewayStatus(ctx context.Context) ([]api.GatewayStatus, error) {
	answers := []api.GatewayStatus{}
	if err := c.fanout(ctx, api.SubjectGatewayStatus, nil, &answers); err != nil {
		return nil, fmt.Errorf("event-gw-status: %w", err)
	}
	return answers, nil
}

// CheckEndpointPort asks the tenant's live event gateways (of site, when
// the endpoint names one), through the api-server in one request, whether
// an endpoint of type typ may take port, and fails with one line naming
// the port, never the tenant holding it ("port 5514/udp is reserved by
// another tenant"), when any of them says another tenant holds it on its
// host. event-endpoint add and enable ask first so that the command
// fails, not only the endpoint. Port 0 (a free one), no gateway, or a
// gateway that does not answer: nothing to check (the gateway itself
// still refuses the port when it starts the endpoint).
func (c *Client) CheckEndpointPort(ctx context.Context, typ string, port int, site string) error {
	if port <= 0 {
		return nil
	}
	var a api.PortFreeAnswer
	req := api.PortCheckRequest{PortFreeRequest: api.PortFreeRequest{Type: typ, Port: port}, Site: site}
	if err := c.fanout(ctx, api.SubjectPortFree, req, &a); err != nil {
		return fmt.Errorf("checking port %d with the event gateways: %w", port, err)
	}
	if !a.Free {
		return errors.New(a.Reason)
	}
	return nil
}
