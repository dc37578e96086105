package eventgw

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/fabricops/fabric/fabric/lib/syslog"
	"github.com/nats-io/nats.go"
)

// recentSize is how many of its last records an endpoint keeps in memory
// for the recent-events bot.
const recentSize = 100

// recent keeps an endpoint's last records, as published.
type recent struct {
	mu   sync.Mutex
	ring [recentSize][]byte
	next int
	n    int
}

func (r *recent) add(rec []byte) {
	r.mu.Lock()
	r.ring[r.next] = rec
	r.next = (r.next + 1) % recentSize
	r.n = min(r.n+1, recentSize)
	r.mu.Unlock()
}

// last returns the last n records (at most what it keeps), oldest first.
func (r *recent) last(n int) [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	n = min(n, r.n)
	out := make([][]byte, 0, n)
	for i := n; i > 0; i-- {
		out = append(out, r.ring[(r.next-i+recentSize)%recentSize])
	}
	return out
}

// agentBot is a bot the gateway publishes: its description and what it
// does with a request.
type agentBot struct {
	api.AgentBot
	run func(g *Gateway, req api.InvokeBotRequest) (columns []string, rows []map[string]any, err error)
}

// eventColumns are the columns of records, in the order of api.Event.
var eventColumns = []string{"timestamp", "received", "endpoint", "type", "source", "host", "severity", "message", "raw",
	"format", "facility", "app_name", "proc_id", "msg_id", "structured_data", "trap_oid", "community", "vars", "body"}

var agentBots = []agentBot{
	{AgentBot: api.AgentBot{Name: "endpoint-status", QueryType: "status", Mode: "source-any",
		Description: "The gateway's endpoints with their state and counters, as event-gw-status shows them.",
		Model:       map[string]string{}},
		run: func(g *Gateway, _ api.InvokeBotRequest) ([]string, []map[string]any, error) {
			var rows []map[string]any
			for _, s := range g.status() {
				rows = append(rows, jsonMap(s))
			}
			return []string{"name", "type", "address", "port", "stream", "state", "error", "received", "parsed", "errors",
				"published", "dropped", "last_event", "pod_id", "hostname", "site_name"}, rows, nil
		}},
	{AgentBot: api.AgentBot{Name: "recent-events", QueryType: "memory", Mode: "source-any",
		Description: fmt.Sprintf("The last records each endpoint received (up to %d per endpoint, kept in the gateway's memory), oldest first.", recentSize),
		Model:       map[string]string{"endpoint": "only this endpoint (default: all)", "max_rows": fmt.Sprintf("at most this many per endpoint (default %d)", recentSize)}},
		run: recentEvents},
	{AgentBot: api.AgentBot{Name: "parse-syslog", QueryType: "parser", Mode: "transform",
		Description: "Parses the syslog messages of the input rows (RFC 5424 or RFC 3164) as the syslog endpoints do: a record per row, or the row's error.",
		Model:       map[string]string{"column": "the column holding the messages (default: raw)"}},
		run: parseSyslogRows},
}

func findBot(name string) (agentBot, bool) {
	for _, b := range agentBots {
		if b.Name == name {
			return b, true
		}
	}
	return agentBot{}, false
}

// bots lists the gateway's bots (EndpointAgentBots).
func (g *Gateway) bots() []api.AgentBot {
	out := make([]api.AgentBot, len(agentBots))
	for i, b := range agentBots {
		out[i] = b.AgentBot
		out[i].AgentType, out[i].SiteName, out[i].PodID = api.EventGateway, g.p.Site, g.p.ID
	}
	return out
}

// invoke answers EndpointInvokeBot.
func (g *Gateway) invoke(m *nats.Msg) api.InvokeBotResponse {
	var req api.InvokeBotRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		return api.InvokeBotResponse{Error: fmt.Sprintf("bad request: %v", err)}
	}
	b, ok := findBot(req.Bot)
	if !ok {
		names := make([]string, len(agentBots))
		for i, b := range agentBots {
			names[i] = b.Name
		}
		return api.InvokeBotResponse{Error: fmt.Sprintf("this gateway has no bot %q (its bots: %v)", req.Bot, names)}
	}
	var q *cfxql.Query
	if req.Query != "" {
		var err error
		if q, err = cfxql.Parse(req.Query); err != nil {
			return api.InvokeBotResponse{Error: fmt.Sprintf("query: %v", err)}
		}
	}
	cols, rows, err := b.run(g, req)
	if err != nil {
		return api.InvokeBotResponse{Error: err.Error()}
	}
	kept := []map[string]any{}
	for _, r := range rows {
		if q != nil {
			ok, err := q.Match(r)
			if err != nil {
				return api.InvokeBotResponse{Error: fmt.Sprintf("query: %v", err)}
			}
			if !ok {
				continue
			}
		}
		kept = append(kept, r)
	}
	return api.InvokeBotResponse{Columns: usedColumns(cols, kept), Rows: kept}
}

// usedColumns returns cols, less those no row has, then the others rows
// have, sorted.
func usedColumns(cols []string, rows []map[string]any) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r {
			seen[k] = true
		}
	}
	var out []string
	known := map[string]bool{}
	for _, c := range cols {
		known[c] = true
		if seen[c] || len(rows) == 0 {
			out = append(out, c)
		}
	}
	var more []string
	for k := range seen {
		if !known[k] {
			more = append(more, k)
		}
	}
	sort.Strings(more)
	return append(out, more...)
}

func recentEvents(g *Gateway, req api.InvokeBotRequest) ([]string, []map[string]any, error) {
	only, _ := req.Model["endpoint"].(string)
	max := recentSize
	if v, ok := req.Model["max_rows"]; ok {
		f, ok := v.(float64)
		if !ok || f < 1 || f != float64(int(f)) {
			return nil, nil, fmt.Errorf("max_rows: %v is not a count above 0", v)
		}
		max = int(f)
	}
	g.mu.Lock()
	var eps []*endpoint
	for name, e := range g.running {
		if only == "" || name == only {
			eps = append(eps, e)
		}
	}
	g.mu.Unlock()
	if only != "" && len(eps) == 0 {
		return nil, nil, fmt.Errorf("this gateway has no endpoint %q", only)
	}
	var rows []map[string]any
	for _, e := range eps {
		for _, rec := range e.recent.last(max) {
			var m map[string]any
			if json.Unmarshal(rec, &m) == nil {
				rows = append(rows, m)
			}
		}
	}
	// One timeline across endpoints: by the time received.
	sort.SliceStable(rows, func(i, j int) bool {
		a, _ := rows[i]["received"].(string)
		b, _ := rows[j]["received"].(string)
		return a < b
	})
	return eventColumns, rows, nil
}

func parseSyslogRows(_ *Gateway, req api.InvokeBotRequest) ([]string, []map[string]any, error) {
	col := "raw"
	if c, ok := req.Model["column"].(string); ok && c != "" {
		col = c
	}
	if len(req.Rows) == 0 {
		return nil, nil, fmt.Errorf("parse-syslog parses the input rows: give some (a CSV with a %q column)", col)
	}
	now := time.Now()
	rows := make([]map[string]any, 0, len(req.Rows))
	for i, r := range req.Rows {
		v, ok := r[col]
		if !ok {
			return nil, nil, fmt.Errorf("input row %d has no column %q", i+1, col)
		}
		raw := fmt.Sprint(v)
		m, err := syslog.Parse([]byte(raw), now)
		if err != nil {
			rows = append(rows, map[string]any{"raw": raw, "error": err.Error()})
			continue
		}
		ev := syslogEvent(&endpoint{cfg: Config{Name: "parse-syslog", Type: api.EndpointSyslogTCP}}, "", []byte(raw), m, now)
		row := jsonMap(ev)
		for _, k := range []string{"received", "endpoint", "type", "source"} {
			delete(row, k)
		}
		rows = append(rows, row)
	}
	return append(eventColumns[:0:0], append(eventColumns, "error")...), rows, nil
}

// jsonMap returns v's JSON fields as a map.
func jsonMap(v any) map[string]any {
	data, _ := json.Marshal(v)
	m := map[string]any{}
	_ = json.Unmarshal(data, &m)
	return m
}
