package api

// The api-server's fan-outs for the client: each asks the live pods it
// names at once and answers with what they said, so that the client sends
// one request.
const (
	// SubjectAgentBots asks the api-server for the bots of the live
	// agents (an AgentsRequest; the answer: []AgentBot, or an Error).
	SubjectAgentBots = "fabric.api.agent-bots"
	// SubjectGatewayStatus asks the api-server for the status of every
	// live event gateway (the answer: []GatewayStatus, or an Error).
	SubjectGatewayStatus = "fabric.api.gateway-status"
	// SubjectPortFree asks the api-server whether the tenant's live event
	// gateways let an endpoint take a port (a PortCheckRequest; the
	// answer: a PortFreeAnswer, or an Error).
	SubjectPortFree = "fabric.api.port-free"
)

// AgentsRequest names the agents asked: of Type and at Site (its name, in
// any case), each any when empty.
type AgentsRequest struct {
	Type string `json:"type,omitempty"`
	Site string `json:"site,omitempty"`
}

// PortCheckRequest asks the live event gateways (of Site, when given)
// whether an endpoint of Type may take Port.
type PortCheckRequest struct {
	PortFreeRequest
	Site string `json:"site,omitempty"`
}
