package logarchive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultBatchSize is how many replayed records are in flight before a
// replay waits for the stream to acknowledge the oldest.
const DefaultBatchSize = 2000

// ReplayOptions say what Replay sends and how fast.
type ReplayOptions struct {
	// From and Span are the range of minutes [From, From+Span).
	From time.Time
	Span time.Duration
	// MaxRows stops after that many records (0: no limit).
	MaxRows int
	// Speed paces the records by their timestamps (see Pacer).
	Speed float64
	// BatchSize is how many records are in flight before the replay
	// waits for the oldest one's acknowledgement (0: DefaultBatchSize).
	BatchSize int
	// Label, when set, is added to each record as its "replay_label".
	Label string
}

// ReplayResult says what a replay sent.
type ReplayResult struct {
	Stream  string  `json:"stream"`
	Created bool    `json:"created"` // the stream did not exist
	Files   int     `json:"files"`
	Records int     `json:"records"`
	Seconds float64 `json:"seconds"`
	// First and Last are the first and last replayed records' timestamps
	// ("" when they have none).
	First string `json:"first"`
	Last  string `json:"last"`
}

// Replay publishes the records of archive name in the range of o to
// stream (created, with no limits of its own, when missing), in order,
// each acknowledged by the stream before it returns, paced by o.Speed.
func (a *Archive) Replay(ctx context.Context, js jetstream.JetStream, name, stream string, o ReplayOptions) (ReplayResult, error) {
	res := ReplayResult{Stream: stream}
	if o.Speed < 0 {
		return res, fmt.Errorf("speed must be 0 or more, not %v", o.Speed)
	}
	if o.BatchSize < 0 {
		return res, fmt.Errorf("batch_size must be above 0, not %d", o.BatchSize)
	}
	batch := o.BatchSize
	if batch == 0 {
		batch = DefaultBatchSize
	}
	files, err := a.Files(ctx, name, o.From, o.Span)
	if err != nil {
		return res, err
	}
	res.Files = len(files)
	if _, err := streams.Get(ctx, js, stream); errors.Is(err, streams.ErrNotFound) {
		if _, err := streams.Add(ctx, js, streams.Config{Name: stream, Description: fmt.Sprintf("replay of %s/%s", a.Repo.Name, name)}); err != nil && !errors.Is(err, streams.ErrExists) {
			return res, err
		}
		res.Created = true
	} else if err != nil {
		return res, err
	}
	w, err := streams.NewWriter(ctx, js, stream)
	if err != nil {
		return res, err
	}
	w.MaxPending = batch
	start := time.Now()
	pace := NewPacer(o.Speed)
	errEnough := errors.New("enough")
	var last []byte
	err = a.Read(ctx, files, func(r []byte) error {
		// Timestamps are read only when pacing: at speed 0 only the first
		// and last records' are (the last once done).
		if o.Speed > 0 || res.Records == 0 {
			if ts, ok := RecordTime(r); ok {
				if res.First == "" {
					res.First = api.Timestamp(ts)
				}
				if err := pace.Wait(ctx, ts); err != nil {
					return err
				}
			}
		}
		// The reader reuses r; the writer keeps what it is given.
		data := labelled(r, o.Label)
		last = data
		if err := w.Write(ctx, data); err != nil {
			return err
		}
		res.Records++
		if o.MaxRows > 0 && res.Records >= o.MaxRows {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	if ferr := w.Flush(ctx); err == nil {
		err = ferr
	}
	res.Seconds = time.Since(start).Seconds()
	if ts, ok := RecordTime(last); ok {
		res.Last = api.Timestamp(ts)
	}
	if err != nil {
		return res, fmt.Errorf("%w (%d records acknowledged before)", err, w.Written())
	}
	return res, nil
}

// labelled returns a copy of record with "replay_label" set to label
// (the record as it is when label is empty or it is not a JSON object).
func labelled(record []byte, label string) []byte {
	if label == "" || len(record) < 2 || record[0] != '{' {
		return append([]byte(nil), record...)
	}
	q, _ := json.Marshal(label)
	out := make([]byte, 0, len(record)+len(q)+17)
	out = append(out, `{"replay_label":`...)
	out = append(out, q...)
	rest := record[1:]
	if body := trimLeftSpace(rest); len(body) > 0 && body[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

func trimLeftSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}

// Pacer spaces records by their timestamps divided by a speed: 0 does
// not pace, 1.0 keeps the original spacing, 2.0 halves it, 0.5 doubles
// it. The record whose timestamp is t waits until (t - t0) / speed has
// passed since the first record (t0) went.
type Pacer struct {
	speed   float64
	first   time.Time // the first record's timestamp
	started time.Time // when it went
}

// NewPacer returns a pacer at speed (0: no pacing).
func NewPacer(speed float64) *Pacer { return &Pacer{speed: speed} }

// Wait waits until the record of timestamp ts is due (or ctx ends).
func (p *Pacer) Wait(ctx context.Context, ts time.Time) error {
	if p.speed <= 0 {
		return nil
	}
	if p.first.IsZero() {
		p.first, p.started = ts, time.Now()
		return nil
	}
	due := p.started.Add(time.Duration(float64(ts.Sub(p.first)) / p.speed))
	if d := time.Until(due); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// RecordTime reads a record's "timestamp" field: an ISO 8601 time (UTC
// unless it says its zone) or epoch seconds.
func RecordTime(record []byte) (time.Time, bool) {
	var v struct {
		Timestamp json.RawMessage `json:"timestamp"`
	}
	if json.Unmarshal(record, &v) != nil || len(v.Timestamp) == 0 {
		return time.Time{}, false
	}
	var s string
	if v.Timestamp[0] == '"' {
		if json.Unmarshal(v.Timestamp, &s) != nil {
			return time.Time{}, false
		}
	} else {
		s = string(v.Timestamp)
	}
	t, err := api.ParseWhen(s, time.Now())
	return t, err == nil && !t.IsZero()
}
