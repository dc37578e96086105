package eventgw

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/api"
)

// listenWebhook serves the webhook endpoint: a POST to its path of a
// JSON object (one event) or array of objects (one event each). The
// answer, 200 {"accepted": N}, comes once the events are queued for the
// stream. A body over the endpoint's size limit (413), not JSON or not
// objects (400) is rejected and kept in the errors stream. https (the
// default) serves the configured certificate, or one it generates.
// Connections past the caps get 503 with one line; a connection idle for
// the endpoint's idle timeout is closed.
func (g *Gateway) listenWebhook(ctx context.Context, e *endpoint) error {
	l, err := net.Listen("tcp", net.JoinHostPort(e.cfg.Address, strconv.Itoa(e.cfg.Port)))
	if err != nil {
		return err
	}
	if e.cfg.Protocol == "https" {
		cert, err := g.webhookCert(ctx, e.cfg)
		if err != nil {
			l.Close()
			return err
		}
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	e.addr, e.port = l.Addr().String(), l.Addr().(*net.TCPAddr).Port
	l = &gatedListener{Listener: l, g: g, e: e, refuse: refuseHTTP}
	mux := http.NewServeMux()
	mux.HandleFunc(e.cfg.Path, func(w http.ResponseWriter, r *http.Request) { g.webhook(ctx, e, w, r) })
	idle := e.cfg.idleTimeout()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: min(10*time.Second, idle), ReadTimeout: time.Minute, WriteTimeout: time.Minute,
		IdleTimeout: idle, MaxHeaderBytes: 64 << 10, ErrorLog: log.New(io.Discard, "", 0)}
	e.closer = func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		_ = srv.Serve(l)
	}()
	return nil
}

func (g *Gateway) webhook(ctx context.Context, e *endpoint, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST a JSON object or array of objects", http.StatusMethodNotAllowed)
		return
	}
	e.received.Add(1)
	source := r.RemoteAddr
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(e.cfg.MaxMessageBytes)))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			g.rejected(e, source, fmt.Errorf("a body over %d bytes", e.cfg.MaxMessageBytes), body)
			http.Error(w, fmt.Sprintf("the body is over %d bytes", e.cfg.MaxMessageBytes), http.StatusRequestEntityTooLarge)
			return
		}
		g.rejected(e, source, fmt.Errorf("reading the body: %v", err), body)
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		g.rejected(e, source, fmt.Errorf("not JSON: %v", err), body)
		http.Error(w, "the body is not JSON", http.StatusBadRequest)
		return
	}
	var items []any
	switch x := v.(type) {
	case map[string]any:
		items = []any{x}
	case []any:
		items = x
	}
	for _, it := range items {
		if _, ok := it.(map[string]any); !ok {
			items = nil
			break
		}
	}
	if items == nil {
		g.rejected(e, source, errors.New("not a JSON object or array of objects"), body)
		http.Error(w, "POST a JSON object or array of objects", http.StatusBadRequest)
		return
	}
	e.parsed.Add(1)
	now := time.Now()
	for _, it := range items {
		obj := it.(map[string]any)
		raw, _ := json.Marshal(obj)
		ev := &api.Event{Timestamp: api.Timestamp(now), Received: api.Timestamp(now), Endpoint: e.cfg.Name, Type: e.cfg.Type,
			Source: source, Host: hostOf(source), Severity: "info", Raw: string(raw), Body: obj}
		// Alert senders name these fields in their own ways: take the
		// common ones.
		for _, k := range []string{"message", "msg", "summary", "text", "description"} {
			if s, ok := obj[k].(string); ok && ev.Message == "" {
				ev.Message = s
			}
		}
		for _, k := range []string{"severity", "level", "priority"} {
			if s, ok := obj[k].(string); ok {
				ev.Severity = s
				break
			}
		}
		for _, k := range []string{"host", "hostname", "source"} {
			if s, ok := obj[k].(string); ok && s != "" {
				ev.Host = s
				break
			}
		}
		e.publish(r.Context(), ev, true)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"accepted":%d}`+"\n", len(items))
}
