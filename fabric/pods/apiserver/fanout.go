package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
)

// fanouts are the api-server's answers that ask a kind of pod each: the
// agents' bots, the event gateways' status and their ports, and the pod
// asks (podask.go). regs are the
// live pods.
type fanouts struct {
	nc   *nats.Conn
	regs func() []api.Registration
}

// handlers returns the fan-out endpoints by subject.
func (f *fanouts) handlers() map[string]nats.MsgHandler {
	return map[string]nats.MsgHandler{
		api.SubjectAgentBots:     f.agentBots,
		api.SubjectGatewayStatus: f.gatewayStatus,
		api.SubjectPortFree:      f.portFree,
		api.SubjectPodAsk:        f.podAsk,
	}
}

// of returns the live pods that keep.
func (f *fanouts) of(keep func(api.Registration) bool) []api.Registration {
	var out []api.Registration
	for _, r := range f.regs() {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// agentBots answers the bots of the live agents an AgentsRequest names,
// by agent then bot name.
func (f *fanouts) agentBots(m *nats.Msg) {
	var req api.AgentsRequest
	if len(m.Data) > 0 {
		if err := json.Unmarshal(m.Data, &req); err != nil {
			pod.Reply(m, api.Error{Error: "bad agent-bots request: " + err.Error()})
			return
		}
	}
	regs := f.of(func(r api.Registration) bool {
		return api.IsAgent(r.PodType) && (req.Type == "" || r.PodType == req.Type) && (req.Site == "" || strings.EqualFold(r.Site, req.Site))
	})
	answers, missing, err := registry.Gather[[]api.AgentBot](context.Background(), f.nc, regs, api.EndpointAgentBots)
	switch {
	case err != nil:
		pod.Reply(m, api.Error{Error: err.Error()})
		return
	case len(missing) > 0 && len(answers) == 0:
		pod.Reply(m, api.Error{Error: fmt.Sprintf("no answer from agent(s) %v", missing)})
		return
	}
	bots := []api.AgentBot{}
	for _, a := range answers {
		bots = append(bots, a...)
	}
	sort.SliceStable(bots, func(i, j int) bool {
		if bots[i].PodID != bots[j].PodID {
			return bots[i].PodID < bots[j].PodID
		}
		return bots[i].Name < bots[j].Name
	})
	pod.Reply(m, bots)
}

// gatewayStatus answers the status of every live event gateway, by pod
// id.
func (f *fanouts) gatewayStatus(m *nats.Msg) {
	regs := f.of(func(r api.Registration) bool { return r.PodType == api.EventGateway })
	answers, missing, err := registry.Gather[api.GatewayStatus](context.Background(), f.nc, regs, api.EndpointGatewayStatus)
	switch {
	case err != nil:
		pod.Reply(m, api.Error{Error: err.Error()})
		return
	case len(missing) > 0 && len(answers) == 0:
		pod.Reply(m, api.Error{Error: fmt.Sprintf("no answer from event gateway(s) %v", missing)})
		return
	}
	sort.Slice(answers, func(i, j int) bool { return answers[i].PodID < answers[j].PodID })
	if answers == nil {
		answers = []api.GatewayStatus{}
	}
	pod.Reply(m, answers)
}

// portFree asks the live event gateways (of the request's site) whether
// an endpoint may take a port: free unless one says another tenant holds
// it. A gateway gone or not answering does not hold it back (it still
// refuses the port when it starts the endpoint).
func (f *fanouts) portFree(m *nats.Msg) {
	var req api.PortCheckRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pod.Reply(m, api.Error{Error: "bad port-free request: " + err.Error()})
		return
	}
	regs := f.of(func(r api.Registration) bool {
		return r.PodType == api.EventGateway && (req.Site == "" || r.Site == req.Site)
	})
	data, _ := json.Marshal(req.PortFreeRequest)
	answers := make([]api.PortFreeAnswer, len(regs))
	errs := make([]error, len(regs))
	var wg sync.WaitGroup
	for i, r := range regs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i].Free = true
			ctx, cancel := context.WithTimeout(context.Background(), registry.RequestTimeout)
			defer cancel()
			msg, err := f.nc.RequestWithContext(ctx, api.PodSubject(r.PodID, api.EndpointPortFree), data)
			if err != nil {
				return
			}
			var e api.Error
			if json.Unmarshal(msg.Data, &e) == nil && e.Error != "" {
				errs[i] = fmt.Errorf("event gateway %s: %s", r.PodID, e.Error)
				return
			}
			if err := json.Unmarshal(msg.Data, &answers[i]); err != nil {
				errs[i] = fmt.Errorf("event gateway %s: bad answer: %v", r.PodID, err)
			}
		}()
	}
	wg.Wait()
	for i, a := range answers {
		if errs[i] != nil {
			pod.Reply(m, api.Error{Error: errs[i].Error()})
			return
		}
		if !a.Free {
			if a.Reason == "" {
				a.Reason = fmt.Sprintf("port %d is reserved by another tenant", req.Port)
			}
			pod.Reply(m, a)
			return
		}
	}
	pod.Reply(m, api.PortFreeAnswer{Free: true})
}
