package api

// Event gateways (SPEC 6): pods of type event-gateway that receive syslog,
// SNMP traps and webhook posts on ingestion endpoints and publish each
// event as a record (Event) to the endpoint's stream.

// Endpoint types of an event gateway.
const (
	EndpointSyslogTCP = "syslog_tcp_go"
	EndpointSyslogUDP = "syslog_udp_go"
	EndpointSNMPTrap  = "snmp_trap"
	EndpointWebhook   = "webhook"
)

// EndpointTypes lists the endpoint types.
var EndpointTypes = []string{EndpointSyslogTCP, EndpointSyslogUDP, EndpointSNMPTrap, EndpointWebhook}

// EndpointGatewayStatus is the per-pod endpoint of an event gateway that
// answers its GatewayStatus.
const EndpointGatewayStatus = "gateway-status"

// EndpointPortFree is the per-pod endpoint of an event gateway that
// answers whether an endpoint of the tenant may take a port
// (PortFreeRequest; the answer: PortFreeAnswer): no, when another tenant
// holds it on the gateway's host. event-endpoint add and enable ask
// first, so that the command, not only the endpoint, fails.
const EndpointPortFree = "port-free"

// PortFreeRequest asks an event gateway whether an endpoint of Type
// (which says the network: UDP for syslog_udp_go and snmp_trap, else
// TCP) may take Port.
type PortFreeRequest struct {
	Type string `json:"type"`
	Port int    `json:"port"`
}

// PortFreeAnswer is an event gateway's answer to a PortFreeRequest: Free,
// or Reason, one line naming the port and never the tenant holding it
// ("port 5514/udp is reserved by another tenant").
type PortFreeAnswer struct {
	Free   bool   `json:"free"`
	Reason string `json:"reason,omitempty"`
}

// DefaultWebhookPort is the webhook endpoint's port unless configured
// (SPEC 6: 443 after the upgrade), with https.
const DefaultWebhookPort = 443

// Event is a record an endpoint publishes: when it happened (its own time
// when it says, else when received), who sent it, how severe, its text
// and the input as received; plus what its format carries.
type Event struct {
	Timestamp string `json:"timestamp"`
	Received  string `json:"received"`
	Endpoint  string `json:"endpoint"`
	Type      string `json:"type"`
	Source    string `json:"source"` // the sender's address (host:port)
	Host      string `json:"host"`
	Severity  string `json:"severity"` // emerg, alert, crit, err, warning, notice, info, debug
	Message   string `json:"message"`
	Raw       string `json:"raw"`
	// Syslog.
	Format   string `json:"format,omitempty"` // rfc5424, rfc3164
	Facility string `json:"facility,omitempty"`
	AppName  string `json:"app_name,omitempty"`
	ProcID   string `json:"proc_id,omitempty"`
	MsgID    string `json:"msg_id,omitempty"`
	// StructuredData is RFC 5424's STRUCTURED-DATA: each SD-ID's
	// parameters ({"exampleSDID@32473": {"iut": "3"}}).
	StructuredData map[string]map[string]string `json:"structured_data,omitempty"`
	// SNMP traps.
	TrapOID   string            `json:"trap_oid,omitempty"`
	Community string            `json:"community,omitempty"`
	Vars      map[string]string `json:"vars,omitempty"`
	// Webhooks: the posted JSON.
	Body any `json:"body,omitempty"`
}

// EventError is a record of StreamGatewayErrors: input an endpoint could
// not take, kept as received (up to the endpoint's size limit).
type EventError struct {
	Timestamp string `json:"timestamp"`
	PodID     string `json:"pod_id"`
	Endpoint  string `json:"endpoint"`
	Type      string `json:"type"`
	Source    string `json:"source"`
	Error     string `json:"error"`
	Raw       string `json:"raw"`
	Truncated bool   `json:"truncated,omitempty"`
}

// IngestStatus is an endpoint as a gateway runs it (event-gw-status),
// with its counters since the gateway started it.
type IngestStatus struct {
	PodID     string `json:"pod_id"`
	Hostname  string `json:"hostname"`
	Site      string `json:"site_name"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	Address   string `json:"address"`
	Port      int    `json:"port"`
	Stream    string `json:"stream"`
	State     string `json:"state"` // listening, disabled, failed
	Error     string `json:"error,omitempty"`
	Received  int64  `json:"received"` // messages: frames, datagrams, posts
	Parsed    int64  `json:"parsed"`   // messages taken (a post may hold several events)
	Errors    int64  `json:"errors"`
	Published int64  `json:"published"`
	// Dropped is every event lost on the host: GatewayDropped (the
	// gateway's queue was full) plus KernelDropped (the socket's receive
	// buffer was full, UDP and SNMP).
	Dropped        int64 `json:"dropped"`
	GatewayDropped int64 `json:"gateway_dropped"`
	KernelDropped  int64 `json:"kernel_dropped"`
	// ReceiveBuffer is the UDP receive buffer the kernel gave, in bytes.
	ReceiveBuffer int64 `json:"receive_buffer,omitempty"`
	// Connections are the TCP connections held now; Refused those refused
	// past a cap (the endpoint's, the tenant's or the host's).
	Connections int64  `json:"connections"`
	Refused     int64  `json:"refused"`
	LastEvent   string `json:"last_event"`
}

// GatewayStatus is what an event gateway answers on
// EndpointGatewayStatus: its endpoints.
type GatewayStatus struct {
	PodID     string         `json:"pod_id"`
	Endpoints []IngestStatus `json:"endpoints"`
}

// Agent bots (SPEC 2.2): the bots an agent publishes, which
// invoke-agent-bot runs on it.
const (
	// EndpointAgentBots is the per-pod endpoint of an agent that lists
	// its bots (the answer: []AgentBot).
	EndpointAgentBots = "agent-bots"
	// EndpointInvokeBot is the per-pod endpoint of an agent that runs one
	// of its bots (an InvokeBotRequest; the answer: an InvokeBotResponse).
	EndpointInvokeBot = "invoke-bot"
)

// AgentBot is a bot an agent publishes (agent-bots).
type AgentBot struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	QueryType   string `json:"query-type"`
	Mode        string `json:"mode"`
	// Model describes the bot's settings: name -> what it means.
	Model     map[string]string `json:"model"`
	AgentType string            `json:"agent_type"`
	SiteName  string            `json:"site_name"`
	PodID     string            `json:"pod_id"`
}

// InvokeBotRequest asks an agent to run one of its bots: with Model's
// settings, on Rows (the bots that take input), its output filtered by
// Query (CFXQL; empty: every row).
type InvokeBotRequest struct {
	Bot   string           `json:"bot"`
	Query string           `json:"query,omitempty"`
	Model map[string]any   `json:"model,omitempty"`
	Rows  []map[string]any `json:"rows,omitempty"`
}

// InvokeBotResponse is a bot's output: its rows (in order, each with the
// same Columns), or the error that stopped it.
type InvokeBotResponse struct {
	Columns []string         `json:"columns"`
	Rows    []map[string]any `json:"rows"`
	Error   string           `json:"error,omitempty"`
}
