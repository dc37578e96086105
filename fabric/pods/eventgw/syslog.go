package eventgw

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/syslog"
)

// syslogEvent makes the record of a syslog message received at now.
func syslogEvent(e *endpoint, source string, raw []byte, m syslog.Message, now time.Time) *api.Event {
	ev := &api.Event{Received: api.Timestamp(now), Endpoint: e.cfg.Name, Type: e.cfg.Type, Source: source,
		Host: m.Hostname, Severity: m.SeverityName(), Message: m.Text, Raw: string(raw), Format: m.Format,
		Facility: m.FacilityName(), AppName: m.AppName, ProcID: m.ProcID, MsgID: m.MsgID, StructuredData: m.StructuredData}
	ev.Timestamp = ev.Received
	if !m.Timestamp.IsZero() {
		ev.Timestamp = api.Timestamp(m.Timestamp)
	}
	if ev.Host == "" {
		ev.Host = hostOf(source)
	}
	return ev
}

// listenSyslogTCP listens for syslog over TCP: each connection a stream
// of frames, octet-counted or newline-framed (RFC 6587). A connection is
// read no faster than the stream takes its records, so that a stream
// that is away slows senders down rather than losing what they sent.
// Connections past the caps are refused with one line, and one silent
// for the idle timeout is closed.
func (g *Gateway) listenSyslogTCP(ctx context.Context, e *endpoint) error {
	l, err := net.Listen("tcp", net.JoinHostPort(e.cfg.Address, strconv.Itoa(e.cfg.Port)))
	if err != nil {
		return err
	}
	e.addr, e.port = l.Addr().String(), l.Addr().(*net.TCPAddr).Port
	l = &gatedListener{Listener: l, g: g, e: e, idle: e.cfg.idleTimeout(), refuse: refuseLine}
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	e.closer = func() {
		l.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
					return
				}
				time.Sleep(10 * time.Millisecond) // out of descriptors, say: try again
				continue
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			e.wg.Add(1)
			go func() {
				defer e.wg.Done()
				defer func() {
					mu.Lock()
					delete(conns, c)
					mu.Unlock()
					c.Close()
				}()
				g.readSyslogConn(ctx, e, c)
			}()
		}
	}()
	return nil
}

func (g *Gateway) readSyslogConn(ctx context.Context, e *endpoint, c net.Conn) {
	source := c.RemoteAddr().String()
	sc := syslog.NewScanner(c, e.cfg.MaxMessageBytes)
	for sc.Scan() {
		frame, ferr := sc.Frame()
		e.received.Add(1)
		if ferr != nil {
			g.rejected(e, source, ferr, frame)
			continue
		}
		now := time.Now()
		m, err := syslog.Parse(frame, now)
		if err != nil {
			g.rejected(e, source, err, frame)
			continue
		}
		e.parsed.Add(1)
		e.publish(ctx, syslogEvent(e, source, frame, m, now), true)
		if ctx.Err() != nil {
			return
		}
	}
}

// listenSyslogUDP listens for syslog over UDP: each datagram a message.
func (g *Gateway) listenSyslogUDP(ctx context.Context, e *endpoint) error {
	return g.listenUDP(ctx, e, func(source string, data []byte, _ func([]byte)) {
		now := time.Now()
		m, err := syslog.Parse(data, now)
		if err != nil {
			g.rejected(e, source, err, data)
			return
		}
		e.parsed.Add(1)
		e.publish(ctx, syslogEvent(e, source, data, m, now), false)
	})
}

// listenUDP listens on the endpoint's UDP port and calls take with each
// datagram (a copy) within the endpoint's size limit; one over it is
// rejected. An event the queue has no room for is dropped (counted): UDP
// cannot slow a sender down. The kernel's own drops (a receive buffer
// full in a burst) are counted too (udpCounters).
func (g *Gateway) listenUDP(ctx context.Context, e *endpoint, take func(source string, data []byte, reply func([]byte))) error {
	pc, err := net.ListenPacket("udp", net.JoinHostPort(e.cfg.Address, strconv.Itoa(e.cfg.Port)))
	if err != nil {
		return err
	}
	uc := pc.(*net.UDPConn)
	e.udp = watchUDP(uc, e.cfg.ReceiveBufferBytes)
	e.addr, e.port = pc.LocalAddr().String(), pc.LocalAddr().(*net.UDPAddr).Port
	e.closer = func() { pc.Close() }
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		buf := make([]byte, e.cfg.MaxMessageBytes+1)
		oob := make([]byte, oobSize)
		for {
			n, oobn, _, from, err := uc.ReadMsgUDP(buf, oob)
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			e.udp.seen(oob[:oobn])
			e.received.Add(1)
			source := from.String()
			data := append([]byte(nil), buf[:n]...)
			if n > e.cfg.MaxMessageBytes {
				g.rejected(e, source, fmt.Errorf("a datagram over %d bytes", e.cfg.MaxMessageBytes), data)
				continue
			}
			take(source, data, func(b []byte) { _, _ = uc.WriteToUDP(b, from) })
		}
	}()
	return nil
}
