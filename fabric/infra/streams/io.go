package streams

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go/jetstream"
)

// Message is a message read from a stream: its sequence number, when the
// stream stored it, and its data (a record, as written).
type Message struct {
	Seq  uint64
	Time time.Time
	Data []byte
}

// ReadOptions say what Read reads.
type ReadOptions struct {
	// From is the time of the first message read (zero: the first the
	// stream keeps).
	From time.Time
	// AfterSeq, when not zero, reads the messages after that sequence
	// number instead (From is not used).
	AfterSeq uint64
	// MaxRows stops after that many messages (0: no limit).
	MaxRows int
	// Follow keeps reading new messages until ctx ends; otherwise Read
	// stops at the last message the stream held when it started.
	Follow bool
}

// idleEnd is how long Read waits for a message it knows is there before
// it takes that the stream dropped it (retention) and stops.
const idleEnd = 5 * time.Second

// Read calls fn with the messages of stream name in order, from
// o.From, until the end (or ctx's end with o.Follow), o.MaxRows, or an
// error of fn. It returns how many it read.
func Read(ctx context.Context, js jetstream.JetStream, name string, o ReadOptions, fn func(Message) error) (int, error) {
	if err := CheckName(name); err != nil {
		return 0, err
	}
	lctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	st, err := js.Stream(lctx, JetStreamName(name))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return 0, fmt.Errorf("stream %s: %w", name, err)
	}
	si, err := st.Info(lctx)
	if err != nil {
		return 0, fmt.Errorf("stream %s: %w", name, err)
	}
	last := si.State.LastSeq
	if !o.Follow && (si.State.Msgs == 0 || !o.From.IsZero() && o.From.After(si.State.LastTime) || o.AfterSeq >= last) {
		return 0, nil // nothing to read
	}
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	switch {
	case o.AfterSeq > 0:
		cfg = jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: o.AfterSeq + 1}
	case !o.From.IsZero():
		from := o.From
		cfg = jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverByStartTimePolicy, OptStartTime: &from}
	}
	cons, err := st.OrderedConsumer(lctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("reading stream %s: %w", name, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return 0, fmt.Errorf("reading stream %s: %w", name, err)
	}
	defer it.Stop()
	// Next blocks: ctx's end and, without Follow, a long silence stop it.
	done := make(chan struct{})
	defer close(done)
	idle := time.NewTimer(idleEnd)
	defer idle.Stop()
	go func() {
		select {
		case <-ctx.Done():
		case <-idle.C:
			if o.Follow {
				<-ctx.Done() // following: silence is normal
			}
		case <-done:
			return
		}
		it.Stop()
	}()
	n := 0
	for {
		m, err := it.Next()
		if err != nil {
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				if ctx.Err() != nil && !o.Follow {
					return n, ctx.Err()
				}
				return n, nil // stopped: ctx's end, or the rest dropped meanwhile
			}
			return n, fmt.Errorf("reading stream %s: %w", name, err)
		}
		idle.Reset(idleEnd)
		meta, err := m.Metadata()
		if err != nil {
			return n, fmt.Errorf("reading stream %s: %w", name, err)
		}
		if err := fn(Message{Seq: meta.Sequence.Stream, Time: meta.Timestamp, Data: m.Data()}); err != nil {
			return n, err
		}
		n++
		if o.MaxRows > 0 && n >= o.MaxRows || !o.Follow && meta.Sequence.Stream >= last {
			return n, nil
		}
	}
}

// Writer publishes records to a stream, many at once, each acknowledged
// by the stream before Flush returns.
type Writer struct {
	js      jetstream.JetStream
	name    string
	subject string
	pending []jetstream.PubAckFuture
	written int
}

// maxPending is how many messages a Writer has in flight before it waits
// for the oldest acknowledgements.
const maxPending = 2048 // under the client's own bound (4,000)

// NewWriter returns a writer to stream name, which must exist.
func NewWriter(ctx context.Context, js jetstream.JetStream, name string) (*Writer, error) {
	if _, err := Get(ctx, js, name); err != nil {
		return nil, err
	}
	return &Writer{js: js, name: name, subject: Subject(name)}, nil
}

// Write publishes one record (data must not change until Flush).
func (w *Writer) Write(ctx context.Context, data []byte) error {
	f, err := w.js.PublishAsync(w.subject, data)
	if err != nil {
		return fmt.Errorf("writing to stream %s: %w", w.name, err)
	}
	w.pending = append(w.pending, f)
	if len(w.pending) >= maxPending {
		return w.Flush(ctx)
	}
	return nil
}

// Flush waits until every record written is acknowledged (or ctx ends,
// or store.Timeout passes without an acknowledgement), and returns the
// first error.
func (w *Writer) Flush(ctx context.Context) error {
	timer := time.NewTimer(store.Timeout)
	defer timer.Stop()
	var first error
	for _, f := range w.pending {
		select {
		case <-f.Ok():
			w.written++
			timer.Reset(store.Timeout)
		case err := <-f.Err():
			if first == nil {
				first = fmt.Errorf("writing to stream %s: %w", w.name, err)
			}
		case <-ctx.Done():
			w.pending = nil
			return ctx.Err()
		case <-timer.C:
			w.pending = nil
			return fmt.Errorf("writing to stream %s: timed out after %s waiting for the stream to acknowledge", w.name, store.Timeout)
		}
	}
	w.pending = w.pending[:0]
	return first
}

// Written is how many records the stream acknowledged.
func (w *Writer) Written() int { return w.written }

// Lines returns a writer of JSON lines to w: each complete line written
// to it is one record (blank lines skipped). Flush w once done.
func (w *Writer) Lines(ctx context.Context) io.Writer {
	return &LineSplitter{Yield: func(line []byte) error { return w.Write(ctx, line) }}
}

// LineSplitter is a writer that hands each complete line written to it,
// trimmed, to Yield (blank lines skipped; a last line without its end is
// not handed). A line is not changed afterwards: Yield may keep it.
type LineSplitter struct {
	Yield func(line []byte) error
	buf   []byte
}

func (l *LineSplitter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if line := bytes.TrimSpace(l.buf[:i]); len(line) > 0 {
			if err := l.Yield(line); err != nil {
				return 0, err
			}
		}
		l.buf = l.buf[i+1:]
	}
}
