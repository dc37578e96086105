package eventgw

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/streams"
)

// Config is an endpoint's record (artifact kind event endpoint).
type Config struct {
	Name            string `json:"name"`
	Type            string `json:"type"`
	Address         string `json:"address"`
	Port            int    `json:"port"`
	Stream          string `json:"stream"`
	Site            string `json:"site"`
	Enabled         *bool  `json:"enabled"`
	MaxMessageBytes int    `json:"max_message_bytes"`
	BatchSize       int    `json:"batch_size"`
	Community       string `json:"community"`
	Protocol        string `json:"protocol"`
	Path            string `json:"path"`
	TLSCertFile     string `json:"tls_cert_file"`
	TLSKeyFile      string `json:"tls_key_file"`
	TLSCertSecret   string `json:"tls_cert_secret"`
	TLSKeySecret    string `json:"tls_key_secret"`
	// MaxConnections bounds the endpoint's TCP connections at once
	// (default DefaultEndpointConnections).
	MaxConnections int `json:"max_connections"`
	// IdleTimeoutSeconds closes a TCP connection silent that long
	// (default DefaultIdleTimeout).
	IdleTimeoutSeconds int `json:"idle_timeout_seconds"`
	// ReceiveBufferBytes asks the kernel for a UDP receive buffer of that
	// size (default DefaultReceiveBuffer; the host may give less).
	ReceiveBufferBytes int `json:"receive_buffer_bytes"`
	enabled            bool
}

// DefaultMaxMessageBytes bounds a message (a syslog frame, a datagram, a
// webhook body) unless an endpoint says otherwise.
const DefaultMaxMessageBytes = 64 << 10

// StreamRetention is how long the stream an endpoint makes keeps its
// records.
const StreamRetention = 7 * 24 * time.Hour

// withDefaults fills what a record leaves out (comparable: a changed
// record is a different Config).
func (c Config) withDefaults() Config {
	if c.Address == "" {
		c.Address = "0.0.0.0"
	}
	if c.Stream == "" {
		c.Stream = c.Name
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = DefaultEndpointConnections
	}
	if c.ReceiveBufferBytes == 0 {
		c.ReceiveBufferBytes = DefaultReceiveBuffer
	}
	if c.Type == api.EndpointWebhook {
		if c.Protocol == "" {
			c.Protocol = "https"
		}
		if c.Port == 0 && c.Protocol == "https" {
			c.Port = api.DefaultWebhookPort
		}
		if c.Path == "" {
			c.Path = "/"
		}
	}
	c.enabled = c.Enabled == nil || *c.Enabled
	c.Enabled = nil
	return c
}

// Endpoint states.
const (
	stateListening = "listening"
	stateDisabled  = "disabled"
	stateFailed    = "failed"
)

// endpoint is a running endpoint: its listener, its sink and counters.
type endpoint struct {
	cfg   Config
	sink  *sink
	state string
	err   string
	addr  string // as bound ("" when not listening)
	port  int

	cancel context.CancelFunc
	wg     sync.WaitGroup
	closer func() // closes the listener

	conns *connGate    // the endpoint's TCP connections
	udp   *udpCounters // a UDP endpoint's kernel drops and receive buffer

	received, parsed, errors atomic.Int64
	open, refused            atomic.Int64 // TCP connections held now, and refused past a cap
	last                     atomic.Int64 // unix nanoseconds of the last event
	recent                   recent       // the last records, for the recent-events bot
}

// start starts an endpoint: its stream (made when missing), its sink and
// its listener. A failure leaves it in state failed, with the reason.
func (g *Gateway) start(c Config) *endpoint {
	e := &endpoint{cfg: c, state: stateDisabled, conns: newConnGate("endpoint "+c.Name, c.MaxConnections)}
	if !c.enabled {
		return e
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	fail := func(err error) *endpoint {
		cancel()
		e.state, e.err = stateFailed, err.Error()
		return e
	}
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	_, err := streams.Ensure(sctx, g.js, streams.Config{Name: c.Stream, Description: "events of endpoint " + c.Name, MaxAge: StreamRetention})
	scancel()
	if err != nil {
		return fail(err)
	}
	e.sink = newSink(g.js, c.Stream, g.p.ID, c.Name, c.BatchSize, g.inflight)
	switch c.Type {
	case api.EndpointSyslogTCP:
		err = g.listenSyslogTCP(ctx, e)
	case api.EndpointSyslogUDP:
		err = g.listenSyslogUDP(ctx, e)
	case api.EndpointSNMPTrap:
		err = g.listenTraps(ctx, e)
	case api.EndpointWebhook:
		err = g.listenWebhook(ctx, e)
	default:
		err = fmt.Errorf("unknown endpoint type %q", c.Type)
	}
	if err != nil {
		return fail(err)
	}
	e.state = stateListening
	e.wg.Add(1)
	go func() { defer e.wg.Done(); e.sink.run(ctx) }()
	return e
}

// stop stops the listener, then the sink once what it holds is
// published (bounded by drainWait).
func (e *endpoint) stop() {
	if e.cancel == nil {
		return
	}
	if e.closer != nil {
		e.closer()
	}
	e.cancel()
	e.wg.Wait()
}

// publish queues an event for the stream (block: wait for room rather
// than drop).
func (e *endpoint) publish(ctx context.Context, ev *api.Event, block bool) {
	e.last.Store(time.Now().UnixNano())
	data, err := appendEvent(make([]byte, 0, 2*len(ev.Raw)+256), ev)
	if err != nil {
		return
	}
	e.recent.add(data)
	e.sink.put(ctx, data, block)
}

func (e *endpoint) status(g *Gateway) api.IngestStatus {
	s := api.IngestStatus{PodID: g.p.ID, Hostname: g.host, Site: g.p.Site, Name: e.cfg.Name, Type: e.cfg.Type,
		Address: e.cfg.Address, Port: e.cfg.Port, Stream: e.cfg.Stream, State: e.state, Error: e.err,
		Received: e.received.Load(), Parsed: e.parsed.Load(), Errors: e.errors.Load(),
		Connections: e.open.Load(), Refused: e.refused.Load()}
	if e.port != 0 {
		s.Port = e.port
	}
	if e.sink != nil {
		s.Published, s.GatewayDropped = e.sink.published.Load(), e.sink.dropped.Load()
	}
	if e.udp != nil {
		s.KernelDropped, s.ReceiveBuffer = e.udp.drops(), e.udp.buffer
	}
	s.Dropped = s.GatewayDropped + s.KernelDropped
	if e.sink != nil {
		if why, _ := e.sink.lastErr.Load().(string); why != "" && s.Error == "" {
			s.Error = "publishing: " + why
		}
	}
	if t := e.last.Load(); t != 0 {
		s.LastEvent = api.Timestamp(time.Unix(0, t))
	}
	return s
}

func isExists(err error) bool { return err != nil && strings.Contains(err.Error(), "exists already") }

// hostOf returns the host of a host:port address.
func hostOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i > 0 {
		return strings.Trim(addr[:i], "[]")
	}
	return addr
}
