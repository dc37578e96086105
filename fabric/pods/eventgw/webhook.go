package eventgw

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/safefile"
)

// listenWebhook serves the webhook endpoint: a POST to its path of a
// JSON object (one event) or array of objects (one event each). The
// answer, 200 {"accepted": N}, comes once the events are queued for the
// stream. A body over the endpoint's size limit (413), not JSON or not
// objects (400) is rejected and kept in the errors stream. https (the
// default) serves the configured certificate, or one it generates.
func (g *Gateway) listenWebhook(ctx context.Context, e *endpoint) error {
	l, err := net.Listen("tcp", net.JoinHostPort(e.cfg.Address, strconv.Itoa(e.cfg.Port)))
	if err != nil {
		return err
	}
	if e.cfg.Protocol == "https" {
		cert, err := g.webhookCert(e.cfg)
		if err != nil {
			l.Close()
			return err
		}
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	e.addr, e.port = l.Addr().String(), l.Addr().(*net.TCPAddr).Port
	mux := http.NewServeMux()
	mux.HandleFunc(e.cfg.Path, func(w http.ResponseWriter, r *http.Request) { g.webhook(ctx, e, w, r) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, ErrorLog: nil}
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

// webhookCert returns the endpoint's certificate: the configured one, or
// a self-signed one for its address, generated once and kept in CertDir
// (the key readable by the owner only).
func (g *Gateway) webhookCert(c Config) (tls.Certificate, error) {
	if c.TLSCertFile != "" || c.TLSKeyFile != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCertFile, c.TLSKeyFile)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("the endpoint's certificate: %v", err)
		}
		return cert, nil
	}
	var certFile, keyFile string
	if g.o.CertDir != "" {
		certFile, keyFile = filepath.Join(g.o.CertDir, c.Name+".crt"), filepath.Join(g.o.CertDir, c.Name+".key")
		if cert, err := tls.LoadX509KeyPair(certFile, keyFile); err == nil {
			return cert, nil
		}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "fabric event gateway " + c.Name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(5, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", g.host},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
	}
	if ip := net.ParseIP(c.Address); ip != nil && !ip.IsUnspecified() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	if certFile != "" {
		if err := os.MkdirAll(g.o.CertDir, 0o700); err == nil {
			_ = safefile.WriteMode(keyFile, 0o600, func(w io.Writer) error { _, err := w.Write(keyPEM); return err })
			_ = safefile.WriteMode(certFile, 0o644, func(w io.Writer) error { _, err := w.Write(certPEM); return err })
		}
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}
