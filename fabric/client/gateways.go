package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

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

// CheckEndpointPort asks the tenant's live event gateways (of site, when
// the endpoint names one) whether an endpoint of type typ may take port,
// and fails with one line naming the port, never the tenant holding it
// ("port 5514/udp is reserved by another tenant"), when any of them says
// another tenant holds it on its host. event-endpoint add and enable ask
// first so that the command fails, not only the endpoint. Port 0 (a free
// one), no gateway, or a gateway that does not answer: nothing to check
// (the gateway itself still refuses the port when it starts the
// endpoint).
func (c *Client) CheckEndpointPort(ctx context.Context, typ string, port int, site string) error {
	if port <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	regs, err := registry.List(ctx, c.JetStream())
	if err != nil {
		return fmt.Errorf("listing the event gateways: %w", err)
	}
	data, err := json.Marshal(api.PortFreeRequest{Type: typ, Port: port})
	if err != nil {
		return err
	}
	type answer struct {
		api.PortFreeAnswer
		err error
	}
	var gws []api.Registration
	for _, r := range regs {
		if r.PodType == api.EventGateway && (site == "" || r.Site == site) {
			gws = append(gws, r)
		}
	}
	answers := make([]answer, len(gws))
	var wg sync.WaitGroup
	for i, r := range gws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, registry.RequestTimeout)
			defer cancel()
			msg, err := c.nc.RequestWithContext(rctx, api.PodSubject(r.PodID, api.EndpointPortFree), data)
			if err != nil {
				answers[i].Free = true // gone, or not answering: the gateway still refuses
				return
			}
			if err := decode(msg.Data, &answers[i].PortFreeAnswer); err != nil {
				answers[i].err = fmt.Errorf("event gateway %s: %w", r.PodID, err)
			}
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a.err != nil {
			return a.err
		}
		if !a.Free {
			if a.Reason == "" {
				a.Reason = fmt.Sprintf("port %d is reserved by another tenant", port)
			}
			return errors.New(a.Reason)
		}
	}
	return nil
}
