package eventgw

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
	"golang.org/x/sys/unix"
)

// The fences on TCP connections (syslog, webhooks): how many one
// endpoint, one tenant's gateway and the whole process hold at once, and
// how long one may stay silent.
const (
	// DefaultEndpointConnections bounds an endpoint's connections unless
	// its max_connections says otherwise.
	DefaultEndpointConnections = 256
	// DefaultTenantConnections bounds a gateway's connections over all
	// its tenant's endpoints unless Options.MaxConnections says otherwise.
	DefaultTenantConnections = 1024
	// DefaultIdleTimeout closes a connection that sent nothing for that
	// long unless the endpoint's idle_timeout_seconds says otherwise.
	DefaultIdleTimeout = 5 * time.Minute
	// processShare is the share of the process's file descriptors the
	// connections of all its gateways may take (the rest is for NATS,
	// stores and the other pods).
	processShare = 4
	// refusing bounds the refused connections told why at once; past it
	// a refused connection is closed without a word.
	refusing = 64
	// refuseWait bounds the telling of one refused connection.
	refuseWait = 2 * time.Second
)

// connGate bounds connections held at once, naming what it fences in
// its refusals.
type connGate struct {
	what string
	max  int
	gate *budget.Gate
}

func newConnGate(what string, n int) *connGate {
	return &connGate{what: what, max: n, gate: budget.NewGate("connections", n, 0)}
}

// processConns bounds the connections of every gateway of the process: a
// share of its descriptor limit.
var processConns = sync.OnceValue(func() *connGate {
	n := 4096
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil && lim.Cur > 0 && lim.Cur < 1<<30 {
		n = max(int(lim.Cur)/processShare, 16)
	}
	return newConnGate("the host's event gateways", n)
})

// refusals bounds the refused connections being told why.
var refusals = budget.NewGate("refusals", refusing, 0)

// errTooManyConnections is matched by every refusal of a connection.
var errTooManyConnections = errors.New("too many connections")

// admit takes a place for a connection to e in the endpoint's, the
// tenant's and the process's gates, or says which is full.
func (g *Gateway) admit(e *endpoint) (release func(), err error) {
	var releases []func()
	undo := func() {
		for _, r := range releases {
			r()
		}
	}
	for _, cg := range []*connGate{e.conns, g.conns, processConns()} {
		r, ok := cg.gate.TryEnter()
		if !ok {
			undo()
			return nil, fmt.Errorf("%w: %s holds %d, the most allowed", errTooManyConnections, cg.what, cg.max)
		}
		releases = append(releases, r)
	}
	var once sync.Once
	return func() { once.Do(undo) }, nil
}

// gatedListener hands out only the connections the gates admit; the
// others are counted (refused), told why in one line when refuse says
// how, and closed.
type gatedListener struct {
	net.Listener
	g      *Gateway
	e      *endpoint
	idle   time.Duration // 0: the server sets its own deadlines
	refuse func(c net.Conn, why error)
}

// Accept returns the next admitted connection.
func (l *gatedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		release, err := l.g.admit(l.e)
		if err != nil {
			l.e.refused.Add(1)
			if done, ok := refusals.TryEnter(); ok && l.refuse != nil {
				go func() {
					defer done()
					defer c.Close()
					_ = c.SetDeadline(time.Now().Add(refuseWait))
					l.refuse(c, err)
				}()
			} else {
				c.Close()
			}
			continue
		}
		l.e.open.Add(1)
		return &heldConn{Conn: c, idle: l.idle, release: func() { l.e.open.Add(-1); release() }}, nil
	}
}

// heldConn gives its place back when closed and, with idle, ends a read
// that waits longer than idle.
type heldConn struct {
	net.Conn
	idle    time.Duration
	release func()
	once    sync.Once
}

// Read reads, giving up after idle without a byte.
func (c *heldConn) Read(p []byte) (int, error) {
	if c.idle > 0 {
		_ = c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	}
	return c.Conn.Read(p)
}

// Close closes the connection and gives its place back (once).
func (c *heldConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// refuseLine tells a refused syslog sender why, in one line.
func refuseLine(c net.Conn, why error) {
	_, _ = fmt.Fprintf(c, "fabric: connection refused: %v\n", why)
}

// refuseHTTP tells a refused webhook sender why: 503 with one line.
func refuseHTTP(c net.Conn, why error) {
	body := fmt.Sprintf("connection refused: %v\n", why)
	_, _ = fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// idleTimeout is an endpoint's idle timeout.
func (c Config) idleTimeout() time.Duration {
	if c.IdleTimeoutSeconds > 0 {
		return time.Duration(c.IdleTimeoutSeconds) * time.Second
	}
	return DefaultIdleTimeout
}
