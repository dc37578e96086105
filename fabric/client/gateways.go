package client

import (
	"context"
	"fmt"
	"sort"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/registry"
)

// GatewayStatus returns every live event gateway with its endpoints and
// their counters (event-gw-status), by pod id, endpoints by name; none
// when the tenant has no gateway.
func (c *Client) GatewayStatus(ctx context.Context) ([]api.GatewayStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	regs, err := registry.List(ctx, c.JetStream())
	if err != nil {
		return nil, fmt.Errorf("event-gw-status: %w", err)
	}
	var gws []api.Registration
	for _, r := range regs {
		if r.PodType == api.EventGateway {
			gws = append(gws, r)
		}
	}
	answers, missing, err := registry.Gather[api.GatewayStatus](ctx, c.nc, gws, api.EndpointGatewayStatus)
	if err != nil {
		return nil, fmt.Errorf("event-gw-status: %w", err)
	}
	if len(missing) > 0 && len(answers) == 0 {
		return nil, fmt.Errorf("event-gw-status: no answer from event gateway(s) %v", missing)
	}
	sort.Slice(answers, func(i, j int) bool { return answers[i].PodID < answers[j].PodID })
	if answers == nil {
		answers = []api.GatewayStatus{}
	}
	return answers, nil
}
