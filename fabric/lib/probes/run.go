package probes

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"syscall"
	"time"
)

// Result statuses.
const (
	StatusUp      = "up"
	StatusWarning = "warning"
	StatusDown    = "down"
)

// Result is the result of a check: a record of api.StreamSynthetics and
// the last result synthetics status shows.
type Result struct {
	Timestamp  string  `json:"timestamp"`
	Profile    string  `json:"profile"`
	Stack      string  `json:"stack"`
	Check      string  `json:"check"`
	Component  string  `json:"component"`
	Type       string  `json:"type"`
	Target     string  `json:"target"`
	Site       string  `json:"site"`
	PodID      string  `json:"pod_id"`
	Status     string  `json:"status"`
	Reason     string  `json:"reason"`
	LatencyMS  float64 `json:"latency_ms"`
	HTTPStatus int     `json:"http_status,omitempty"`
	// DaysLeft and CertExpires are the certificate's (tls probes, and
	// http probes of https URLs).
	DaysLeft    *int   `json:"days_left,omitempty"`
	CertExpires string `json:"cert_expires,omitempty"`
}

// Guard is what a probe may not reach beside the addresses the package
// refuses to all (see the package comment).
type Guard struct {
	// Refused are host:port addresses (IP literals) no probe reaches:
	// the fabric's message bus.
	Refused []string
}

// control refuses a connection to an address a probe may not reach; it
// runs once the name is resolved, on the address dialed.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return fmt.Errorf("%s is not an IP address", host)
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return fmt.Errorf("a probe may not reach link-local addresses (%s)", host)
	case ip.IsUnspecified() || ip.IsMulticast():
		return fmt.Errorf("a probe may not reach %s", host)
	case slices.Contains(g.Refused, address):
		return fmt.Errorf("a probe may not reach the fabric's message bus (%s)", address)
	}
	return nil
}

func (g Guard) dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: g.control}
}

// Run runs a check once, within its timeout. now is the clock of the
// certificate's days left.
func Run(ctx context.Context, c Check, g Guard, now func() time.Time) Result {
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	r := Result{Profile: c.Profile, Stack: c.Stack, Check: c.Probe, Component: c.Component, Type: c.Type, Target: c.Target, Status: StatusUp}
	start := time.Now()
	var err error
	switch c.Type {
	case TypeHTTP:
		err = runHTTP(ctx, c, g, &r, now)
	case TypeTCP:
		var conn net.Conn
		if conn, err = g.dialer(c.Timeout).DialContext(ctx, "tcp", c.Target); err == nil {
			_ = conn.Close()
			r.Reason = "connected"
		}
	case TypeTLS:
		err = runTLS(ctx, c, g, &r, now)
	default:
		err = fmt.Errorf("no probe of type %q", c.Type)
	}
	r.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		r.Status, r.Reason = StatusDown, reason(err, c.Timeout)
		return r
	}
	if c.MaxLatency > 0 && r.Status == StatusUp && time.Duration(r.LatencyMS*float64(time.Millisecond)) > c.MaxLatency {
		r.Status = StatusWarning
		r.Reason = fmt.Sprintf("%s; slower than %d ms", r.Reason, c.MaxLatency.Milliseconds())
	}
	return r
}

// reason says why a probe failed, in one line.
func reason(err error, timeout time.Duration) string {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer within %s", timeout)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Op + " " + oe.Addr.String() + ": " + oe.Err.Error()
	}
	return err.Error()
}

func runHTTP(ctx context.Context, c Check, g Guard, r *Result, now func() time.Time) error {
	client := &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            g.dialer(c.Timeout).DialContext,
			TLSClientConfig:        &tls.Config{InsecureSkipVerify: c.Insecure},
			TLSHandshakeTimeout:    c.Timeout,
			DisableKeepAlives:      true,
			MaxResponseHeaderBytes: 64 << 10,
		},
		// A redirect is an answer: its status is what the probe judges,
		// and the probe reaches no other address.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, c.Method, c.Target, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "fabric-synthetics")
	resp, err := client.Do(req)
	if err != nil {
		return unwrapURL(err)
	}
	defer resp.Body.Close()
	r.HTTPStatus = resp.StatusCode
	if resp.TLS != nil && len(resp.TLS.PeerCertificates) > 0 {
		certDays(resp.TLS.PeerCertificates[0], r, now)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes))
	if err != nil {
		return fmt.Errorf("reading the response: %v", unwrapURL(err))
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 400
	if len(c.ExpectStatus) > 0 {
		ok = slices.Contains(c.ExpectStatus, resp.StatusCode)
	}
	if !ok {
		want := "2xx or 3xx"
		if len(c.ExpectStatus) > 0 {
			want = fmt.Sprint(c.ExpectStatus)
		}
		return fmt.Errorf("status %d, expected %s", resp.StatusCode, want)
	}
	if c.BodyRegex != nil && !c.BodyRegex.Match(body) {
		return fmt.Errorf("status %d, but the body (first %d bytes read) does not match %q", resp.StatusCode, len(body), c.BodyRegex.String())
	}
	r.Reason = fmt.Sprintf("status %d", resp.StatusCode)
	return nil
}

// unwrapURL drops the "Get URL:" of the http client's errors (the target
// is in the result already).
func unwrapURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		return ue.Unwrap()
	}
	return err
}

func runTLS(ctx context.Context, c Check, g Guard, r *Result, now func() time.Time) error {
	host, _, _ := net.SplitHostPort(c.Target)
	d := &tls.Dialer{NetDialer: g.dialer(c.Timeout), Config: &tls.Config{InsecureSkipVerify: true, ServerName: host}}
	conn, err := d.DialContext(ctx, "tcp", c.Target)
	if err != nil {
		return err
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return errors.New("the server sent no certificate")
	}
	leaf := certs[0]
	days := certDays(leaf, r, now)
	if days < 0 {
		return fmt.Errorf("the certificate expired on %s", r.CertExpires)
	}
	if !c.Insecure {
		inter := x509.NewCertPool()
		for _, ct := range certs[1:] {
			inter.AddCert(ct)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Intermediates: inter, CurrentTime: now()}); err != nil {
			return fmt.Errorf("certificate not trusted: %v", err)
		}
	}
	switch {
	case days < c.WarnDays:
		r.Status = StatusWarning
		r.Reason = fmt.Sprintf("the certificate expires in %d days (%s), fewer than %d", days, r.CertExpires, c.WarnDays)
	default:
		r.Reason = fmt.Sprintf("the certificate expires in %d days", days)
	}
	return nil
}

// certDays records a certificate's expiry and returns the whole days
// left (negative once expired).
func certDays(cert *x509.Certificate, r *Result, now func() time.Time) int {
	left := cert.NotAfter.Sub(now())
	days := int(left / (24 * time.Hour))
	if left < 0 {
		days = -1 - int(-left/(24*time.Hour))
	}
	r.DaysLeft = &days
	r.CertExpires = cert.NotAfter.UTC().Format(time.RFC3339)
	return days
}
