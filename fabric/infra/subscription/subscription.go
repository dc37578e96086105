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
	"errors"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Target is where a subscription delivers (artifact.SubscriptionTarget).
type Target = artifact.SubscriptionTarget

// Target types.
const (
	TypeWebhook = artifact.TargetWebhook
	TypeStream  = artifact.TargetStream
	TypeEmail   = artifact.TargetEmail
)

// CheckTarget checks a target of a subscription reading stream source
// (artifact.CheckSubscriptionTarget).
func CheckTarget(t Target, source string) error { return artifact.CheckSubscriptionTarget(t, source) }

// CertPool reads PEM certificates into a pool (artifact.CertPool).
func CertPool(pemText string) (*x509.CertPool, error) { return artifact.CertPool(pemText) }

// Headers of a webhook delivery.
const (
	// SignatureHeader carries "sha256=" and the hex HMAC-SHA256 of the
	// body under the target's secret.
	SignatureHeader = "X-Fabric-Signature-256"
	// IdempotencyHeader carries the delivery's key: the subscription's
	// consumer, when its stream was made and the record's sequence number
	// in the stream. A record
	// delivered again (the fabric stopped between the receiver's answer
	// and its acknowledgement) has the same key: a receiver that keeps
	// the keys it saw drops the second.
	IdempotencyHeader = "Idempotency-Key"
	// SubscriptionHeader names the subscription.
	SubscriptionHeader = "X-Fabric-Subscription"
)

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
	b, err := js.KeyValue(ctx, StateBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return State{}, nil // nothing delivered in the tenant yet
	}
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
	b, err := js.KeyValue(ctx, StateBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil
	}
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

// OfDocument reads the state of the subscription whose document (JSON)
// is doc, and returns its name with it.
func OfDocument(ctx context.Context, js jetstream.JetStream, doc []byte) (string, State, error) {
	var d struct {
		Name    string `json:"name"`
		Stream  string `json:"stream"`
		Enabled *bool  `json:"enabled"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return "", State{}, err
	}
	s, err := Get(ctx, js, d.Name, d.Stream, d.Enabled == nil || *d.Enabled)
	return d.Name, s, err
}

// Fields are the state's fields in the order get and list show them.
var Fields = []string{"status", "delivered", "filtered", "failed", "pending", "last_delivery", "last_error", "last_error_time"}

// Values returns the state's fields by name (Fields).
func (s State) Values() map[string]any {
	return map[string]any{"status": s.Status, "delivered": s.Delivered, "filtered": s.Filtered, "failed": s.Failed,
		"pending": s.Pending, "last_delivery": s.LastDelivery, "last_error": s.LastError, "last_error_time": s.LastErrorTime}
}
