package artifact

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"

	"github.com/fabricops/fabric/fabric/api"
)

// Subscription target types.
const (
	TargetWebhook = "webhook"
	TargetStream  = "stream"
	TargetEmail   = "email"
)

// SubscriptionTarget is where a subscription delivers.
type SubscriptionTarget struct {
	// Type is webhook or stream (email is refused).
	Type string `json:"type"`
	// URL is a webhook's http or https URL.
	URL string `json:"url,omitempty"`
	// Secret names the tenant's secret (package secret) whose value signs
	// each webhook body (HMAC-SHA256, header X-Fabric-Signature-256); none: the
	// body is not signed.
	Secret string `json:"secret,omitempty"`
	// CA is the PEM of the certificates a webhook's server certificate
	// may chain to, instead of the system's (a private receiver).
	CA string `json:"ca,omitempty"`
	// Stream is a stream target's stream.
	Stream string `json:"stream,omitempty"`
	// To and Template are an email target's (refused).
	To       []string `json:"to,omitempty"`
	Template string   `json:"template,omitempty"`
}

// ErrEmailTarget is the refusal of an email target.
var ErrEmailTarget = errors.New("target: type email is not delivered: the fabric has no mail relay; use a webhook target to a mail service")

// CheckSubscriptionTarget checks a target of a subscription reading
// stream source (the fences: no mail, the fabric having no relay; a
// stream target is not a system stream nor the source; a webhook is an
// http or https URL without credentials); the error names the field.
// The stream is the tenant's by construction: the deliverer writes
// through the tenant's own connection.
func CheckSubscriptionTarget(t SubscriptionTarget, source string) error {
	switch t.Type {
	case TargetEmail:
		return ErrEmailTarget
	case TargetStream:
		if t.Stream == "" {
			return errors.New("target: a stream target needs stream")
		}
		if api.IsSystemStream(t.Stream) {
			return fmt.Errorf("target.stream: %s is a system stream: the fabric writes it", t.Stream)
		}
		if t.Stream == source {
			return fmt.Errorf("target.stream: %s is the subscription's own stream (it would deliver its deliveries)", t.Stream)
		}
		if t.URL != "" || t.Secret != "" || t.CA != "" {
			return errors.New("target: url, secret and ca are a webhook's, not a stream target's")
		}
	case TargetWebhook:
		if t.URL == "" {
			return errors.New("target: a webhook target needs url")
		}
		u, err := url.Parse(t.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("target.url: %q is not an http or https URL", t.URL)
		}
		if u.User != nil {
			return errors.New("target.url: credentials do not go in the URL: sign with secret")
		}
		if t.CA != "" {
			if _, err := CertPool(t.CA); err != nil {
				return fmt.Errorf("target.ca: %v", err)
			}
		}
		if t.Stream != "" {
			return errors.New("target: stream is a stream target's, not a webhook's")
		}
	default:
		return fmt.Errorf("target.type: %q is not webhook or stream", t.Type)
	}
	return nil
}

// CertPool reads PEM certificates into a pool.
func CertPool(pemText string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	rest, n := []byte(pemText), 0
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %v", n+1, err)
		}
		pool.AddCert(c)
		n++
	}
	if n == 0 {
		return nil, errors.New("no PEM certificate")
	}
	return pool, nil
}
