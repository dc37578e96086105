package streams

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Message is a message read from a stream: its sequence number, when the
// stream stored it, its data (a record, as written) and its headers.
type Message struct {
	Seq    uint64
	Time   time.Time
	Data   []byte
	Header nats.Header // the message's headers (nil: none)
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
	// Durable, when set, reads through the stream's durable consumer of
	// that name (made when missing, from the first message or From):
	// each message is acknowledged once fn took it, so that the next
	// Read of the same name goes on after it, and readers of one name
	// share the messages (each is read by one of them).
	Durable string
}

// validDurable is what a durable consumer's name may be.
var validDurable = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// idleEnd is how long Read waits for a message it knows is there before
// it takes that the stream dropped it (retention) and stops.
const idleEnd = 5 * time.Second

// Read calls fn with the messages of stream name in order, from
// o.From, until the end (or ctx's end with o.Follow), o.MaxRows, or an
// error of fn. It returns how many it read.
func Read(ctx context.Context, js jetstream.JetStream, name string, o ReadOptions, fn func(Message) error) (int, error) {
	if err := checkExisting(name); err != nil {
		return 0, err
	}
	lctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	// The opening requests are asked again when one is lost (a server
	// restarting): a service reading the stream rides the restart out.
	var st jetstream.Stream
	var si *jetstream.StreamInfo
	err := store.Retry(lctx, func(actx context.Context) (err error) {
		if st, err = js.Stream(actx, JetStreamName(name)); err != nil {
			return err
		}
		si, err = st.Info(actx)
		return err
	})
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if err != nil {
		return 0, fmt.Errorf("stream %s: %w", name, err)
	}
	last := si.State.LastSeq
	if !o.Follow && (si.State.Msgs == 0 || !o.From.IsZero() && o.From.After(si.State.LastTime) || o.AfterSeq >= last) {
		return 0, nil // nothing to read
	}
	if o.Durable != "" {
		n, err := readDurable(ctx, st, o, fn)
		if err != nil {
			return n, fmt.Errorf("reading stream %s: %w", name, err)
		}
		return n, nil
	}
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	switch {
	case o.AfterSeq > 0:
		cfg = jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: o.AfterSeq + 1}
	case !o.From.IsZero():
		from := o.From
		cfg = jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverByStartTimePolicy, OptStartTime: &from}
	}
	var cons jetstream.Consumer
	err = store.Retry(lctx, func(actx context.Context) (err error) {
		cons, err = st.OrderedConsumer(actx, cfg)
		return err
	})
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
		if err := fn(Message{Seq: meta.Sequence.Stream, Time: meta.Timestamp, Data: m.Data(), Header: m.Headers()}); err != nil {
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
	// MaxPending is how many records are in flight (published, not yet
	// acknowledged) before Write waits for the oldest acknowledgement
	// (0: DefaultMaxPending).
	MaxPending int
	pending    []jetstream.PubAckFuture
	head       int // pending[head:] are in flight
	written    int
}

// DefaultMaxPending is a Writer's MaxPending unless set: under the
// client's own bound (4,000).
const DefaultMaxPending = 2048

// NewWriter returns a writer to stream name, which must exist and not be
// a system stream (ErrSystemWrite): it writes what users write.
func NewWriter(ctx context.Context, js jetstream.JetStream, name string) (*Writer, error) {
	if api.IsSystemStream(name) {
		return nil, fmt.Errorf("%s %w", name, ErrSystemWrite)
	}
	if _, err := Get(ctx, js, name); err != nil {
		return nil, err
	}
	return &Writer{js: js, name: name, subject: Subject(name)}, nil
}

// Write publishes one record (data must not change until Flush). With
// MaxPending records in flight, it first waits for the oldest one's
// acknowledgement, so that publishing goes on while the stream
// acknowledges.
func (w *Writer) Write(ctx context.Context, data []byte) error {
	max := w.MaxPending
	if max <= 0 {
		max = DefaultMaxPending
	}
	if len(w.pending)-w.head >= max {
		if _, err := w.ack(ctx, w.pending[w.head]); err != nil {
			w.pending, w.head = w.pending[:0], 0
			return err
		}
		w.pending[w.head] = nil
		w.head++
		if w.head >= max {
			// Keep the slice from growing: move the in-flight ones down.
			n := copy(w.pending, w.pending[w.head:])
			clear(w.pending[n:])
			w.pending, w.head = w.pending[:n], 0
		}
	}
	f, err := w.js.PublishAsync(w.subject, data)
	if err != nil {
		return fmt.Errorf("writing to stream %s: %w", w.name, err)
	}
	w.pending = append(w.pending, f)
	return nil
}

// ack waits for the acknowledgement of f (or ctx's end, or store.Timeout);
// stop says that the error ends the wait for the others too.
func (w *Writer) ack(ctx context.Context, f jetstream.PubAckFuture) (stop bool, err error) {
	timer := time.NewTimer(store.Timeout)
	defer timer.Stop()
	select {
	case <-f.Ok():
		w.written++
		return false, nil
	case err := <-f.Err():
		return false, fmt.Errorf("writing to stream %s: %w", w.name, err)
	case <-ctx.Done():
		return true, ctx.Err()
	case <-timer.C:
		return true, fmt.Errorf("writing to stream %s: timed out after %s waiting for the stream to acknowledge", w.name, store.Timeout)
	}
}

// Flush waits until every record written is acknowledged (or ctx ends,
// or store.Timeout passes without an acknowledgement), and returns the
// first error.
func (w *Writer) Flush(ctx context.Context) error {
	var first error
	for _, f := range w.pending[w.head:] {
		if stop, err := w.ack(ctx, f); err != nil {
			if stop {
				w.pending, w.head = w.pending[:0], 0
				return err
			}
			if first == nil {
				first = err
			}
		}
	}
	w.pending, w.head = w.pending[:0], 0
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

// durable returns the stream's durable consumer of o.Durable, made when
// missing (from the first message, or from o.From).
func durable(ctx context.Context, st jetstream.Stream, o ReadOptions) (jetstream.Consumer, error) {
	if !validDurable().MatchString(o.Durable) {
		return nil, fmt.Errorf("durable: %q is not a consumer name (up to 64 letters, digits, _ and -)", o.Durable)
	}
	cons, err := st.Consumer(ctx, o.Durable)
	if err == nil {
		return cons, nil
	}
	if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, err
	}
	cfg := jetstream.ConsumerConfig{Durable: o.Durable, AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		AckWait: time.Minute, Description: "read-stream durable reader"}
	if !o.From.IsZero() {
		from := o.From
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &from
	}
	return st.CreateOrUpdateConsumer(ctx, cfg)
}

// fetchWait is how long a durable read waits for a batch: while
// following, it fetches again after it.
const fetchWait = 2 * time.Second

// readDurable is Read through a durable consumer: it fetches only as
// many messages as it may still read (none is left unacknowledged when
// it stops, so none waits for redelivery), and acknowledges each once
// fn took it.
func readDurable(ctx context.Context, st jetstream.Stream, o ReadOptions, fn func(Message) error) (int, error) {
	lctx, cancel := context.WithTimeout(ctx, store.Timeout)
	var cons jetstream.Consumer
	err := store.Retry(lctx, func(actx context.Context) (err error) {
		cons, err = durable(actx, st, o)
		return err
	})
	cancel()
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		batch := 256
		if o.MaxRows > 0 && o.MaxRows-n < batch {
			batch = o.MaxRows - n
		}
		if !o.Follow {
			lctx, cancel := context.WithTimeout(ctx, store.Timeout)
			info, err := cons.Info(lctx)
			cancel()
			if err != nil {
				return n, err
			}
			if info.NumPending == 0 {
				return n, nil // read to the end
			}
			batch = int(min(int64(batch), int64(info.NumPending)))
		}
		fctx, fcancel := context.WithTimeout(ctx, fetchWait)
		msgs, err := cons.Fetch(batch, jetstream.FetchContext(fctx))
		if err != nil {
			fcancel()
			return n, err
		}
		for m := range msgs.Messages() {
			meta, err := m.Metadata()
			if err != nil {
				fcancel()
				return n, err
			}
			if err := fn(Message{Seq: meta.Sequence.Stream, Time: meta.Timestamp, Data: m.Data(), Header: m.Headers()}); err != nil {
				_ = m.Nak()
				fcancel()
				return n, err
			}
			if err := m.DoubleAck(ctx); err != nil {
				fcancel()
				return n, fmt.Errorf("acknowledging message %d: %w", meta.Sequence.Stream, err)
			}
			n++
		}
		fcancel()
		switch err := msgs.Error(); {
		case ctx.Err() != nil:
			if o.Follow {
				return n, nil
			}
			return n, ctx.Err()
		case err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded):
			return n, err
		case o.MaxRows > 0 && n >= o.MaxRows:
			return n, nil
		}
	}
}
