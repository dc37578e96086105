// Package subscription holds what the shell and the pods share of a
// subscription's delivery: its target as stored, the checks of a target
// (the fences: a stream target is one of the tenant's own streams, not a
// system stream and not the source; a webhook is an http or https URL;
// mail is refused, the fabric having no mail relay), the name of its
// durable JetStream consumer, and its delivery state, which the leading
// scheduler writes (package deliverer) and `subscription get`/`list`
// show.
package subscription

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Target types.
const (
	TypeWebhook = "webhook"
	TypeStream  = "stream"
	TypeEmail   = "email"
)

// Target is where a subscription delivers.
type Target struct {
	// Type is webhook or stream (email is refused).
	Type string `json:"type"`
	// URL is a webhook's http or https URL.
	URL string `json:"url,omitempty"`
	// Secret names the tenant's secret (package secret) whose value signs
	// each webhook body (HMAC-SHA256, header SignatureHeader); none: the
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

// Headers of a webhook delivery.
const (
	// SignatureHeader carries "sha256=" and the hex HMAC-SHA256 of the
	// body under the target's secret.
	SignatureHeader = "X-Fabric-Signature-256"
	// IdempotencyHeader carries the delivery's key: the subscription's
	// consumer and the record's sequence number in its stream. A record
	// delivered again (the fabric stopped between the receiver's answer
	// and its acknowledgement) has the same key: a receiver that keeps
	// the keys it saw drops the second.
	IdempotencyHeader = "Idempotency-Key"
	// SubscriptionHeader names the subscription.
	SubscriptionHeader = "X-Fabric-Subscription"
)

// ErrEmail is the refusal of an email target.
var ErrEmail = errors.New("target: type email is not delivered: the fabric has no mail relay; use a webhook target to a mail service")

// CheckTarget checks a target of a subscription reading stream source;
// the error names the field.
func CheckTarget(t Target, source string) error {
	switch t.Type {
	case TypeEmail:
		return ErrEmail
	case TypeStream:
		if t.Stream == "" {
			return errors.New("target: a stream target needs stream")
		}
		if err := streams.CheckName(t.Stream); err != nil {
			return fmt.Errorf("target.stream: %v", err)
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
	case TypeWebhook:
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

// ConsumerName is the durable consumer of the subscription name on its
// stream: "sub-" and a hash of the name (any name gives a valid one).
func ConsumerName(name string) string { return ConsumerOfKey(store.Key(name)) }

// ConsumerOfKey is ConsumerName of the name whose store.Key is key.
func ConsumerOfKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return "sub-" + hex.EncodeToString(h[:16])
}

// StateBucket keeps each subscription's delivery state, by store.Key of
// its name.
const StateBucket = "fabric_subscription_state"

// State is a subscription's delivery state.
type State struct {
	// Delivered counts the records delivered, Filtered those its filter
	// passed over, Failed those given up after the retries.
	Delivered int64 `json:"delivered"`
	Filtered  int64 `json:"filtered"`
	Failed    int64 `json:"failed"`
	// Pending counts the records of the stream not delivered yet (live
	// from the consumer when State is read through Get).
	Pending int64 `json:"pending"`
	// LastDelivery is when a record was last delivered ("" never).
	LastDelivery string `json:"last_delivery"`
	// LastError is the last failure ("" none since the last delivery),
	// LastErrorTime when.
	LastError     string `json:"last_error"`
	LastErrorTime string `json:"last_error_time"`
	// Status is delivering, retrying, waiting (for its stream), disabled
	// or "" (not started yet).
	Status string `json:"status"`
	// Stream is the stream the consumer reads (its consumer is deleted
	// with the subscription).
	Stream string `json:"stream"`
}

// Status values.
const (
	StatusDelivering = "delivering"
	StatusRetrying   = "retrying"
	StatusWaiting    = "waiting"
	StatusDisabled   = "disabled"
	StatusNotStarted = "not started"
)

func kv(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	return store.EnsureKV(ctx, js, jetstream.KeyValueConfig{Bucket: StateBucket, History: 1,
		Description: "subscriptions' delivery state"})
}

// Load reads the stored state of the subscription name (zero when none).
func Load(ctx context.Context, js jetstream.JetStream, name string) (State, error) {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	b, err := kv(ctx, js)
	if err != nil {
		return State{}, err
	}
	e, err := b.Get(ctx, store.Key(name))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return State{}, nil
	}
	if err != nil {
		return State{}, err
	}
	var s State
	if err := json.Unmarshal(e.Value(), &s); err != nil {
		return State{}, fmt.Errorf("delivery state of %s: %v", name, err)
	}
	return s, nil
}

// Save writes the state of the subscription name.
func Save(ctx context.Context, js jetstream.JetStream, name string, s State) error {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	b, err := kv(ctx, js)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(s)
	_, err = b.Put(ctx, store.Key(name), data)
	return err
}

// Forget deletes the state and the consumer of a deleted subscription of
// stream source.
func Forget(ctx context.Context, js jetstream.JetStream, name, source string) error {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	if source != "" {
		err := js.DeleteConsumer(ctx, streams.JetStreamName(source), ConsumerName(name))
		if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return err
		}
	}
	b, err := kv(ctx, js)
	if err != nil {
		return err
	}
	if err := b.Delete(ctx, store.Key(name)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return err
	}
	return nil
}

// Get reads the state of the subscription name of stream source, its
// pending count live from the consumer (when there is one).
func Get(ctx context.Context, js jetstream.JetStream, name, source string, enabled bool) (State, error) {
	s, err := Load(ctx, js, name)
	if err != nil {
		return s, err
	}
	if source != "" {
		ctx, cancel := context.WithTimeout(ctx, store.Timeout)
		defer cancel()
		if c, err := js.Consumer(ctx, streams.JetStreamName(source), ConsumerName(name)); err == nil {
			if i, err := c.Info(ctx); err == nil {
				s.Pending = int64(i.NumPending) + int64(i.NumAckPending)
			}
		}
	}
	switch {
	case !enabled:
		s.Status = StatusDisabled
	case s.Status == "":
		s.Status = StatusNotStarted
	}
	return s, nil
}

// Stamp is the time format of the state.
func Stamp(t time.Time) string { return api.Timestamp(t) }
