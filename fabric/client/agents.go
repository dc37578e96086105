package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/nats-io/nats.go"
)

// agents returns the registrations of the live agents of type typ (any
// agent type when empty) at site (any site when empty; the site's name,
// in any case).
func (c *Client) agents(ctx context.Context, typ, site string) ([]api.Registration, error) {
	regs, err := registry.List(ctx, c.JetStream())
	if err != nil {
		return nil, err
	}
	var out []api.Registration
	for _, r := range regs {
		if api.IsAgent(r.PodType) && (typ == "" || r.PodType == typ) && (site == "" || strings.EqualFold(r.Site, site)) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PodID < out[j].PodID })
	return out, nil
}

// AgentBots returns the bots the live agents publish (agent-bots), of
// agents of type typ and site when given, by agent then bot name: the
// api-server asks the agents, in one request.
func (c *Client) AgentBots(ctx context.Context, typ, site string) ([]api.AgentBot, error) {
	bots := []api.AgentBot{}
	if err := c.fanout(ctx, api.SubjectAgentBots, api.AgentsRequest{Type: typ, Site: site}, &bots); err != nil {
		return nil, fmt.Errorf("agent-bots: %w", err)
	}
	return bots, nil
}

// InvokeAgentBot runs a bot on an agent of type typ at site (the first
// live one, by pod id) and returns its output. The request and the
// answer each fit in one message of the fabric (1 MB unless configured).
func (c *Client) InvokeAgentBot(ctx context.Context, typ, site string, req api.InvokeBotRequest) (api.InvokeBotResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	regs, err := c.agents(ctx, typ, site)
	if err != nil {
		return api.InvokeBotResponse{}, err
	}
	data, err := json.Marshal(req)
	if err != nil {
		return api.InvokeBotResponse{}, err
	}
	if max := c.nc.MaxPayload(); int64(len(data)) > max {
		return api.InvokeBotResponse{}, fmt.Errorf("the input is too large: %d bytes of request, the fabric takes %d at most", len(data), max)
	}
	for _, r := range regs {
		msg, err := c.nc.RequestWithContext(ctx, api.PodSubject(r.PodID, api.EndpointInvokeBot), data)
		if errors.Is(err, nats.ErrNoResponders) {
			continue // gone since it last registered
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return api.InvokeBotResponse{}, fmt.Errorf("agent %s did not answer within %s", r.PodID, Timeout)
			}
			return api.InvokeBotResponse{}, err
		}
		var resp api.InvokeBotResponse
		if err := json.Unmarshal(msg.Data, &resp); err != nil {
			return resp, fmt.Errorf("agent %s: bad answer: %v", r.PodID, err)
		}
		if resp.Error != "" {
			return resp, fmt.Errorf("agent %s: %s", r.PodID, resp.Error)
		}
		return resp, nil
	}
	where := "of type " + typ
	if site != "" {
		where += " at site " + site
	}
	return api.InvokeBotResponse{}, fmt.Errorf("no live agent %s", where)
}
