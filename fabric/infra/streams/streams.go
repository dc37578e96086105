// Package streams keeps a tenant's persistent streams (SPEC 6) in its
// JetStream: the stream named N is the JetStream stream PS_<key> taking
// the subject fabric.ps.<key> (key: store.Key(N)), each message one
// record (a JSON object), kept by age and by size (the oldest dropped
// first). The system streams of api.SystemStreams exist in every tenant
// (EnsureSystem) and cannot be deleted.
package streams

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go/jetstream"
)

// Errors of the streams.
var (
	ErrNotFound = errors.New("no such stream")
	ErrExists   = errors.New("a stream of that name exists")
	ErrSystem   = errors.New("a system stream cannot be deleted")
	ErrName     = errors.New(`a stream name is 1 to 128 printable characters, without spaces, '.', '*', '>', '/' or '\' (as NATS subjects and JetStream names require)`)
	// ErrSystemWrite refuses a user's write into a system stream: the
	// fabric writes those, and reads them as it wrote them.
	ErrSystemWrite = errors.New("is a system stream: the fabric writes it, users only read it")
)

// Retention of the system streams: a day, and a number of records (not a
// size: a stream's size limit is reserved out of the tenant's storage
// whether used or not, where a count costs only what it holds); the
// gateway errors, which keep raw input, fewer.
const (
	SystemMaxAge       = 24 * time.Hour
	SystemMaxMsgs      = 100_000
	SystemErrorMaxMsgs = 10_000
)

// Config is a stream's configuration.
type Config struct {
	Name        string
	Description string
	// MaxAge drops messages older than it (0: kept whatever their age).
	MaxAge time.Duration
	// MaxBytes drops the oldest messages beyond that size (0: none but
	// the tenant's storage limit). The size is reserved out of the
	// tenant's storage.
	MaxBytes int64
	// MaxMsgs drops the oldest messages beyond that number (0: none).
	MaxMsgs int64
	// MaxMsgSize refuses messages larger than it, in bytes (0: none but
	// the server's).
	MaxMsgSize int32
}

// Info describes a stream (pstream get and list).
type Info struct {
	Name           string  `json:"name"`
	Description    string  `json:"description"`
	System         bool    `json:"system"`
	RetentionHours float64 `json:"retention_hours"` // 0: by age, never
	MaxSizeMB      float64 `json:"max_size_mb"`     // 0: no size of its own
	MaxMessages    int64   `json:"max_messages"`    // 0: no number
	Messages       uint64  `json:"messages"`
	SizeMB         float64 `json:"size_mb"`
	FirstTime      string  `json:"first_time"` // "" when empty
	LastTime       string  `json:"last_time"`
	Created        string  `json:"created"`
}

// CheckName checks a stream name: what NATS subjects and JetStream
// stream names refuse (spaces, control characters, the subject
// separator '.', the wildcards '*' and '>', path separators) it refuses
// too, so that a name means the same wherever it goes.
func CheckName(name string) error {
	if err := checkExisting(name); err != nil {
		return err
	}
	if strings.ContainsAny(name, `.*>/\`) {
		return ErrName
	}
	return nil
}

// checkExisting checks the name of a stream that may exist: what earlier
// versions accepted (they did not refuse '.', '*', '>', '/' and '\')
// stays reachable, to be read and deleted.
func checkExisting(name string) error {
	if name == "" || len(name) > 128 || !utf8.ValidString(name) {
		return ErrName
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f {
			return ErrName
		}
	}
	return nil
}

// JetStreamName is the JetStream stream of the stream name.
func JetStreamName(name string) string { return store.StreamName(name) }

// Subject is the subject the stream name takes its messages on.
func Subject(name string) string { return api.StreamSubjectPrefix + store.Key(name) }

func (c Config) jetstream(replicas int) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        JetStreamName(c.Name),
		Description: describe(c.Name, c.Description),
		Subjects:    []string{Subject(c.Name)},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		MaxAge:      c.MaxAge,
		MaxBytes:    orUnlimited(c.MaxBytes),
		MaxMsgs:     orUnlimited(c.MaxMsgs),
		MaxMsgSize:  int32(orUnlimited(int64(c.MaxMsgSize))),
		Replicas:    replicas,
	}
}

func orUnlimited(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return n
}

// describe keeps the stream's name (the JetStream name is its key) and
// the user's description in the JetStream description: "name\ntext".
func describe(name, text string) string { return name + "\n" + text }

func undescribe(d string) (name, text string) {
	name, text, _ = strings.Cut(d, "\n")
	return name, text
}

// Add creates a stream (ErrExists when there is one of that name).
func Add(ctx context.Context, js jetstream.JetStream, c Config) (Info, error) {
	if err := CheckName(c.Name); err != nil {
		return Info{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	// JetStream makes a stream again without complaint when the config is
	// the same: look first.
	if _, err := js.Stream(ctx, JetStreamName(c.Name)); err == nil {
		return Info{}, fmt.Errorf("%w: %s", ErrExists, c.Name)
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return Info{}, fmt.Errorf("adding stream %s: %w", c.Name, err)
	}
	st, err := js.CreateStream(ctx, c.jetstream(store.Replicas(js.Conn())))
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return Info{}, fmt.Errorf("%w: %s", ErrExists, c.Name)
	}
	if err != nil {
		return Info{}, fmt.Errorf("adding stream %s: %w", c.Name, err)
	}
	return info(st.CachedInfo()), nil
}

// Ensure creates a stream unless it exists (leaving one that does as it
// is), and returns it.
func Ensure(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.Stream, error) {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	st, err := js.Stream(ctx, JetStreamName(c.Name))
	if err == nil {
		return st, nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("stream %s: %w", c.Name, err)
	}
	st, err = js.CreateStream(ctx, c.jetstream(store.Replicas(js.Conn())))
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return js.Stream(ctx, JetStreamName(c.Name)) // made meanwhile
	}
	if err != nil {
		return nil, fmt.Errorf("adding stream %s: %w", c.Name, err)
	}
	return st, nil
}

// EnsureSystem makes the system streams that are missing; the gateway
// errors with their bounds (api.GatewayErrorsMaxBytes and MaxAge, and
// api.GatewayErrorRecordMaxBytes a record) from the start.
func EnsureSystem(ctx context.Context, js jetstream.JetStream) error {
	for _, name := range api.SystemStreams {
		c := Config{Name: name, Description: "system stream", MaxAge: SystemMaxAge, MaxMsgs: SystemMaxMsgs}
		if name == api.StreamGatewayErrors {
			c.MaxMsgs = SystemErrorMaxMsgs
			c.MaxBytes, c.MaxAge, c.MaxMsgSize = api.GatewayErrorsMaxBytes, api.GatewayErrorsMaxAge, api.GatewayErrorRecordMaxBytes
		}
		_, err := Ensure(ctx, js, c)
		if err != nil && c.MaxBytes > 0 {
			// A size is reserved out of the tenant's storage: one too
			// small for it keeps the stream bounded by count and age.
			c.MaxBytes = 0
			_, err = Ensure(ctx, js, c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Get describes a stream.
func Get(ctx context.Context, js jetstream.JetStream, name string) (Info, error) {
	if err := checkExisting(name); err != nil {
		return Info{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	st, err := js.Stream(ctx, JetStreamName(name))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return Info{}, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return Info{}, fmt.Errorf("stream %s: %w", name, err)
	}
	i, err := st.Info(ctx)
	if err != nil {
		return Info{}, fmt.Errorf("stream %s: %w", name, err)
	}
	return info(i), nil
}

// Exists reports whether there is a stream of that name.
func Exists(ctx context.Context, js jetstream.JetStream, name string) (bool, error) {
	_, err := Get(ctx, js, name)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// List describes every stream, by name.
func List(ctx context.Context, js jetstream.JetStream) ([]Info, error) {
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	l := js.ListStreams(ctx, jetstream.WithStreamListSubject(api.StreamSubjectPrefix+">"))
	out := []Info{}
	for i := range l.Info() {
		if strings.HasPrefix(i.Config.Name, store.StreamPrefix) {
			out = append(out, info(i))
		}
	}
	if err := l.Err(); err != nil {
		return nil, fmt.Errorf("listing streams: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Delete deletes a stream and its messages (ErrSystem for a system one).
func Delete(ctx context.Context, js jetstream.JetStream, name string) error {
	if err := checkExisting(name); err != nil {
		return err
	}
	if api.IsSystemStream(name) {
		return fmt.Errorf("%w: %s", ErrSystem, name)
	}
	ctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	err := js.DeleteStream(ctx, JetStreamName(name))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return fmt.Errorf("deleting stream %s: %w", name, err)
	}
	return nil
}

func info(i *jetstream.StreamInfo) Info {
	name, text := undescribe(i.Config.Description)
	if !strings.Contains(i.Config.Description, "\n") { // not made here: its key as its name
		name, text = strings.TrimPrefix(i.Config.Name, store.StreamPrefix), i.Config.Description
	}
	out := Info{
		Name:           name,
		Description:    text,
		System:         api.IsSystemStream(name),
		RetentionHours: i.Config.MaxAge.Hours(),
		Messages:       i.State.Msgs,
		SizeMB:         mb(int64(i.State.Bytes)),
		Created:        api.Timestamp(i.Created),
	}
	if i.Config.MaxBytes > 0 {
		out.MaxSizeMB = mb(i.Config.MaxBytes)
	}
	if i.Config.MaxMsgs > 0 {
		out.MaxMessages = i.Config.MaxMsgs
	}
	if i.State.Msgs > 0 {
		out.FirstTime, out.LastTime = api.Timestamp(i.State.FirstTime), api.Timestamp(i.State.LastTime)
	}
	return out
}

func mb(n int64) float64 { return float64(n*100/(1<<20)) / 100 }
