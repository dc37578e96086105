// Package eventgw is the event gateway pod (SPEC 6): it runs the tenant's
// ingestion endpoints (artifact kind event endpoint: syslog over TCP and
// UDP, SNMP traps, webhooks), parses what they receive into records
// (api.Event) and publishes them in batches to each endpoint's stream.
// Input it cannot take is counted and kept, as received, in the system
// stream of gateway errors; no input stops an endpoint or the gateway.
// Endpoints are started, changed and stopped as their records change.
package eventgw

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Options configure a gateway.
type Options struct {
	// Defaults makes the gateway add, when the tenant has no endpoint,
	// one of each type on 127.0.0.1 on free ports, each into a stream of
	// its name (the local fabric).
	Defaults bool
	// CertDir keeps the certificates a webhook endpoint generates (empty:
	// generated anew at each start).
	CertDir string
	// MetricsPeriod is how often each endpoint's counters go to the
	// system stream of gateway metrics (default 30 s).
	MetricsPeriod time.Duration
	// PortsDir is the host's directory of port reservations, shared by
	// every fabricd of the host (empty: a table shared by the gateways of
	// this process only). See PortRegistry.
	PortsDir string
	// DataDir is the tenant's own directory: a webhook's tls_cert_file
	// and tls_key_file are paths inside it (empty: certificates come from
	// the tenant's secrets only).
	DataDir string
	// RetryFailed is how often the endpoints that failed to start are
	// tried again (default 5 s).
	RetryFailed time.Duration
	// MaxConnections bounds the TCP connections (syslog, webhooks) the
	// gateway holds for its tenant at once, over all its endpoints
	// (default DefaultTenantConnections).
	MaxConnections int
	// MaxBytesInFlight bounds the bytes of records the gateway holds for
	// its tenant that their streams have not acknowledged yet (default
	// DefaultBytesInFlight).
	MaxBytesInFlight int64
}

// Gateway is a running event gateway.
type Gateway struct {
	p    *pod.Pod
	o    Options
	js   jetstream.JetStream
	repo *artifact.Repo
	host string
	errs *sink // the system stream of gateway errors

	ports    *PortRegistry
	conns    *connGate  // the tenant's connections, over its endpoints
	inflight *byteLimit // the bytes of records not acknowledged yet
	secrets  *secret.Store

	mu      sync.Mutex
	running map[string]*endpoint // by name
}

// Serve starts the gateway on pod p until the pod stops.
func Serve(p *pod.Pod, o Options) error {
	if o.MetricsPeriod <= 0 {
		o.MetricsPeriod = 30 * time.Second
	}
	if o.RetryFailed <= 0 {
		o.RetryFailed = 5 * time.Second
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultTenantConnections
	}
	if o.MaxBytesInFlight <= 0 {
		o.MaxBytesInFlight = DefaultBytesInFlight
	}
	p.SetLimits(limitRows(o))
	ports, err := portRegistry(o.PortsDir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := tenant.New(p.Conn()).Store(ctx)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	g := &Gateway{p: p, o: o, js: p.JetStream(), repo: &artifact.Repo{Store: st}, host: host, running: map[string]*endpoint{},
		ports: ports, conns: newConnGate("the tenant's gateway", o.MaxConnections), inflight: newByteLimit(o.MaxBytesInFlight),
		secrets: &secret.Store{Store: st}}
	if err := streams.EnsureSystem(ctx, g.js); err != nil {
		return err
	}
	if err := boundErrorStream(ctx, g.js); err != nil {
		p.Warnf(api.LoggerEndpoints, "%v", err) // the stream stays bounded by count
	}
	g.errs = newSink(g.js, api.StreamGatewayErrors, p.ID, "errors", 100, g.inflight)
	if o.Defaults {
		if err := g.addDefaults(ctx); err != nil {
			return fmt.Errorf("adding the default endpoints: %w", err)
		}
	}
	kv, err := st.KV(ctx, jetstream.KeyValueConfig{Bucket: artifact.EventEndpoint.Bucket, History: 1})
	if err != nil {
		return err
	}
	life, stop := context.WithCancel(context.Background())
	watcher, err := kv.WatchAll(life)
	if err != nil {
		stop()
		return err
	}
	var subs []*nats.Subscription
	for endpoint, h := range map[string]nats.MsgHandler{
		api.EndpointGatewayStatus: func(m *nats.Msg) { pod.Reply(m, api.GatewayStatus{PodID: p.ID, Endpoints: g.status()}) },
		api.EndpointAgentBots:     func(m *nats.Msg) { pod.Reply(m, g.bots()) },
		api.EndpointInvokeBot:     func(m *nats.Msg) { pod.Reply(m, g.invoke(m)) },
		api.EndpointPortFree:      func(m *nats.Msg) { pod.Reply(m, g.portFree(m.Data)) },
	} {
		sub, err := p.Conn().Subscribe(api.PodSubject(p.ID, endpoint), h)
		if err != nil {
			for _, s := range subs {
				_ = s.Unsubscribe()
			}
			stop()
			return err
		}
		subs = append(subs, sub)
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); g.errs.run(life) }()
	go func() { defer wg.Done(); g.watch(life, watcher) }()
	go func() { defer wg.Done(); g.reportMetrics(life) }()
	p.OnStop(func() {
		for _, s := range subs {
			_ = s.Unsubscribe()
		}
		_ = watcher.Stop()
		stop()
		g.stopAll()
		wg.Wait()
	})
	return nil
}

// watch reconciles the running endpoints with their records at the start
// and after each change (a burst of changes once), and tries the failed
// ones again every RetryFailed (a port held by another process, say).
func (g *Gateway) watch(ctx context.Context, w jetstream.KeyWatcher) {
	retry := time.NewTicker(g.o.RetryFailed)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-retry.C:
			if g.dropFailed() {
				g.reconcile(ctx)
			}
			continue
		case _, ok := <-w.Updates():
			if !ok {
				return
			}
		}
		// Take the rest of a burst (and the end of the initial values).
	more:
		for {
			select {
			case _, ok := <-w.Updates():
				if !ok {
					break more
				}
			case <-time.After(20 * time.Millisecond):
				break more
			}
		}
		g.reconcile(ctx)
	}
}

// reconcile starts the endpoints of this gateway that do not run, stops
// those no longer wanted and restarts those whose configuration changed.
func (g *Gateway) reconcile(ctx context.Context) {
	lctx, cancel := context.WithTimeout(ctx, store.Timeout)
	recs, err := g.repo.List(lctx, artifact.EventEndpoint)
	cancel()
	if err != nil {
		g.p.Warnf(api.LoggerEndpoints, "reading the event endpoints: %v", err)
		return
	}
	want := map[string]Config{}
	named := map[string]bool{} // the ports the tenant's records name, of any site
	for _, rec := range recs {
		var c Config
		data, _ := json.Marshal(rec.Doc.Value())
		if err := json.Unmarshal(data, &c); err != nil {
			continue
		}
		c = c.withDefaults()
		if c.Port != 0 {
			named[portKey(networkOf(c.Type), c.Port)] = true
		}
		if c.Site != "" && c.Site != g.p.Site {
			continue
		}
		want[c.Name] = c
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for name, e := range g.running {
		if c, ok := want[name]; !ok || c != e.cfg {
			e.stop()
			delete(g.running, name)
			if !ok {
				g.p.Infof(api.LoggerEndpoints, "endpoint %s stopped", name)
			}
		}
	}
	g.releaseUnnamed(named)
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := g.running[name]; ok {
			continue
		}
		c := want[name]
		var e *endpoint
		if err := g.reserve(c); err != nil {
			e = &endpoint{cfg: c, state: stateFailed, err: err.Error()}
		} else {
			e = g.start(c)
		}
		g.running[name] = e
		if e.state == stateListening {
			g.p.Infof(api.LoggerEndpoints, "endpoint %s (%s) listening on %s into stream %s", name, e.cfg.Type, e.addr, e.cfg.Stream)
		} else if e.err != "" {
			g.p.Warnf(api.LoggerEndpoints, "endpoint %s (%s): %s", name, e.cfg.Type, e.err)
		}
	}
}

// dropFailed forgets the endpoints that failed to start, so that the next
// reconcile starts them again; it reports whether there were any.
func (g *Gateway) dropFailed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	dropped := false
	for name, e := range g.running {
		if e.state == stateFailed {
			e.stop()
			delete(g.running, name)
			dropped = true
		}
	}
	return dropped
}

func (g *Gateway) stopAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for name, e := range g.running {
		e.stop()
		delete(g.running, name)
	}
}

// status returns the endpoints this gateway runs, by name.
func (g *Gateway) status() []api.IngestStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := []api.IngestStatus{}
	for _, e := range g.running {
		out = append(out, e.status(g))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// reportMetrics writes each endpoint's counters to the system stream of
// gateway metrics every MetricsPeriod.
func (g *Gateway) reportMetrics(ctx context.Context) {
	t := time.NewTicker(g.o.MetricsPeriod)
	defer t.Stop()
	subject := streams.Subject(api.StreamGatewayMetrics)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := api.Timestamp(time.Now())
		for _, s := range g.status() {
			data, _ := json.Marshal(struct {
				Timestamp string `json:"timestamp"`
				api.IngestStatus
			}{now, s})
			_ = g.p.Conn().Publish(subject, data)
		}
	}
}

// rejected counts input an endpoint could not take and keeps it in the
// errors stream as received, up to ErrorRawMaxBytes: longer input is cut,
// and the record says so (truncated, and its size in the reason).
func (g *Gateway) rejected(e *endpoint, source string, why error, raw []byte) {
	e.errors.Add(1)
	rec := api.EventError{Timestamp: api.Timestamp(time.Now()), PodID: g.p.ID, Endpoint: e.cfg.Name, Type: e.cfg.Type,
		Source: cutText(source), Error: cutText(why.Error())}
	size := len(raw)
	raw, rec.Truncated = cutRaw(raw)
	if rec.Truncated {
		rec.Error += fmt.Sprintf(" (input of %d bytes, cut to its first %d)", size, ErrorRawMaxBytes)
	}
	rec.Raw = string(raw)
	if e.cfg.Type == api.EndpointSNMPTrap {
		rec.Raw = fmt.Sprintf("%x", raw) // binary: as its events keep it
	}
	data, _ := json.Marshal(rec)
	if len(data) > errorRecordMaxBytes {
		// Escaped past the stream's message limit, which would refuse it:
		// keep the reason without the input.
		rec.Raw, rec.Truncated = "", true
		data, _ = json.Marshal(rec)
	}
	g.errs.put(context.Background(), data, false)
}

// freePort returns a port of 127.0.0.1 free now for network ("tcp" or
// "udp") that no other tenant holds.
func (g *Gateway) freePort(network string) (int, error) {
	for range 20 {
		port, err := kernelFreePort(network)
		if err != nil || g.ports.Free(g.p.Tenant, network, port) {
			return port, err
		}
	}
	return 0, fmt.Errorf("no free %s port on 127.0.0.1 that no other tenant holds", network)
}

// kernelFreePort returns a port of 127.0.0.1 free now, for network.
func kernelFreePort(network string) (int, error) {
	if network == "udp" {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).Port, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// addDefaults adds one endpoint of each type on 127.0.0.1, on ports free
// now (kept in their records, so that they stay the same), of the
// gateway's site (another gateway of the tenant does not take them), when
// the tenant has none.
func (g *Gateway) addDefaults(ctx context.Context) error {
	recs, err := g.repo.List(ctx, artifact.EventEndpoint)
	if err != nil || len(recs) > 0 {
		return err
	}
	for _, d := range []struct{ name, typ, network string }{
		{"syslog-tcp", api.EndpointSyslogTCP, "tcp"},
		{"syslog-udp", api.EndpointSyslogUDP, "udp"},
		{"snmp-traps", api.EndpointSNMPTrap, "udp"},
		{"webhook", api.EndpointWebhook, "tcp"},
	} {
		port, err := g.freePort(d.network)
		if err != nil {
			return err
		}
		doc, _ := json.Marshal(map[string]any{"name": d.name, "type": d.typ, "address": "127.0.0.1", "port": port, "stream": d.name,
			"site": g.p.Site, "description": "the local fabric's " + d.typ + " endpoint"})
		if _, err := g.repo.Add(ctx, artifact.EventEndpoint, doc, false); err != nil && !isExists(err) {
			return err
		}
	}
	return nil
}
