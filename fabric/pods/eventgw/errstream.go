package eventgw

import (
	"context"
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// The bounds of the system stream of gateway errors: what a tenant that
// sends garbage can make it hold (api's, which streams.EnsureSystem makes
// the stream with).
const (
	// ErrorStreamMaxBytes bounds the stream's size: the oldest records
	// go first.
	ErrorStreamMaxBytes = api.GatewayErrorsMaxBytes
	// ErrorStreamMaxAge bounds a record's age.
	ErrorStreamMaxAge = api.GatewayErrorsMaxAge
	// ErrorRawMaxBytes bounds the input one error record keeps: longer
	// input is cut, and the record says so.
	ErrorRawMaxBytes = api.GatewayErrorRawMaxBytes
	// errorTextMaxBytes bounds the reason one error record gives.
	errorTextMaxBytes = api.GatewayErrorTextMaxBytes
)

// boundErrorStream gives the stream of gateway errors its bounds by size
// and by age when it has others (made before streams.EnsureSystem gave
// them from the start, bounded by count only).
func boundErrorStream(ctx context.Context, js jetstream.JetStream) error {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	st, err := js.Stream(ctx, streams.JetStreamName(api.StreamGatewayErrors))
	if err != nil {
		return fmt.Errorf("stream %s: %w", api.StreamGatewayErrors, err)
	}
	cfg := st.CachedInfo().Config
	if cfg.MaxBytes == ErrorStreamMaxBytes && cfg.MaxAge == ErrorStreamMaxAge && cfg.MaxMsgSize == errorRecordMaxBytes {
		return nil
	}
	cfg.MaxBytes, cfg.MaxAge, cfg.MaxMsgSize = ErrorStreamMaxBytes, ErrorStreamMaxAge, errorRecordMaxBytes
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("bounding stream %s to %d bytes: %w", api.StreamGatewayErrors, ErrorStreamMaxBytes, err)
	}
	return nil
}

// errorRecordMaxBytes bounds one record of the stream: its input (hex
// for SNMP doubles it, JSON escapes up to six times it), its reason and
// its fields.
const errorRecordMaxBytes = api.GatewayErrorRecordMaxBytes

// cutRaw cuts input kept in an error record to ErrorRawMaxBytes and
// reports whether it did.
func cutRaw(raw []byte) ([]byte, bool) {
	if len(raw) <= ErrorRawMaxBytes {
		return raw, false
	}
	return raw[:ErrorRawMaxBytes], true
}

// cutText cuts an error's reason to errorTextMaxBytes.
func cutText(s string) string {
	if len(s) <= errorTextMaxBytes {
		return s
	}
	return s[:errorTextMaxBytes] + "..."
}
