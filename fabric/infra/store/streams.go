package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/nats-io/nats.go/jetstream"
)

// StreamPrefix begins the name of the JetStream stream that holds a
// persistent stream of the tenant.
const StreamPrefix = "PS_"

// StreamName is the JetStream stream holding the tenant's persistent
// stream name (any name: see Key).
func StreamName(name string) string { return StreamPrefix + Key(name) }

// StreamFields reports whether the tenant has the persistent stream name
// and, when it holds a message, the fields of its last one (a JSON
// object; nil when the stream is empty or its messages are not objects).
func (s *Store) StreamFields(ctx context.Context, name string) (found bool, fields []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	st, err := s.js.Stream(ctx, StreamName(name))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, timeout(fmt.Errorf("looking up stream %q: %w", name, err), "looking up stream "+name)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return false, nil, timeout(fmt.Errorf("looking up stream %q: %w", name, err), "looking up stream "+name)
	}
	if info.State.Msgs == 0 {
		return true, nil, nil
	}
	msg, err := st.GetMsg(ctx, info.State.LastSeq)
	if err != nil {
		return true, nil, nil // trimmed meanwhile: the fields cannot be told
	}
	var rec map[string]json.RawMessage
	if json.Unmarshal(msg.Data, &rec) != nil {
		return true, nil, nil
	}
	for k := range rec {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	return true, fields, nil
}
