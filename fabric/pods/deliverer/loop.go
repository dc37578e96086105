package deliverer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/subscription"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// retryWait is how long a loop that cannot deliver at all (its stream,
// its target or its secret missing) waits before it tries again.
var retryWait = 5 * time.Second

// saveEvery is how often a loop writes its state while delivering.
const saveEvery = time.Second

// loop delivers one subscription.
type loop struct {
	d      *Deliverer
	spec   spec
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex // guards state
	state    subscription.State
	lastSave time.Time
	saved    subscription.State // as last written
	// keyPrefix starts a delivery's key: the consumer's name and when
	// its stream was made (a stream made again numbers from 1 again).
	keyPrefix string
}

// start starts a subscription's loop.
func (d *Deliverer) start(s spec) *loop {
	ctx, cancel := context.WithCancel(context.Background())
	l := &loop{d: d, spec: s, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.run(ctx)
	}()
	return l
}

// stop stops the loop and waits for it (its record under way is
// acknowledged when delivered, else handed back to the stream).
func (l *loop) stop() {
	l.cancel()
	<-l.done
}

// permanent is a failure that trying again does not mend.
type permanent struct{ error }

func (l *loop) run(ctx context.Context) {
	js := l.d.js
	// The counts go on from the stored ones: a loop that cannot read
	// them waits rather than start again from zero.
	st, err := subscription.Load(ctx, js, l.spec.Name)
	for err != nil {
		l.d.o.Logf("subscription %s: reading its delivery state: %v", l.spec.Name, err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(retryWait):
		}
		st, err = subscription.Load(ctx, js, l.spec.Name)
	}
	if st.Stream != "" && st.Stream != l.spec.Stream {
		// Moved to another stream while no loop ran: the old stream's
		// consumer goes, and the counts start again.
		if err := subscription.Forget(ctx, js, l.spec.Name, st.Stream); err != nil {
			l.d.o.Logf("subscription %s: forgetting its consumer on %s: %v", l.spec.Name, st.Stream, err)
		}
		st = subscription.State{}
	}
	l.state = st
	l.state.Stream = l.spec.Stream
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		l.save(sctx, true)
	}()
	for ctx.Err() == nil {
		err := l.deliver(ctx)
		if ctx.Err() != nil {
			return
		}
		l.failed(subscription.StatusWaiting, err)
		l.save(ctx, true)
		select {
		case <-ctx.Done():
		case <-time.After(retryWait):
		}
	}
}

// failed records a failure.
func (l *loop) failed(status string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.state.Status, l.state.LastError, l.state.LastErrorTime = status, err.Error(), subscription.Stamp(time.Now())
}

// save writes the state (at most every saveEvery, and only when it
// changed, unless now), with the consumer's pending count.
func (l *loop) save(ctx context.Context, now bool) {
	if !now && time.Since(l.lastSave) < saveEvery {
		return
	}
	l.lastSave = time.Now()
	l.mu.Lock()
	s := l.state
	l.mu.Unlock()
	if c, err := l.d.js.Consumer(ctx, streams.JetStreamName(l.spec.Stream), subscription.ConsumerName(l.spec.Name)); err == nil {
		if i, err := c.Info(ctx); err == nil {
			s.Pending = int64(i.NumPending) + int64(i.NumAckPending)
		}
	}
	if !now && s == l.saved {
		return
	}
	if err := subscription.Save(ctx, l.d.js, l.spec.Name, s); err != nil {
		if ctx.Err() == nil {
			l.d.o.Logf("subscription %s: saving its delivery state: %v", l.spec.Name, err)
		}
		return
	}
	l.saved = s
}

// sender delivers one record, keyed for idempotency.
type sender func(ctx context.Context, key string, seq uint64, data []byte) error

// deliver delivers the records of the subscription's stream until ctx
// ends or something keeps it from going on (returned).
func (l *loop) deliver(ctx context.Context) error {
	var q *cfxql.Query
	if l.spec.Filter != "" {
		var err error
		if q, err = cfxql.Parse(l.spec.Filter); err != nil {
			return fmt.Errorf("filter: %v", err)
		}
	}
	send, closeSend, err := l.sender(ctx)
	if err != nil {
		return err
	}
	defer closeSend()
	cons, err := l.consumer(ctx)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.state.Status = subscription.StatusDelivering
	l.mu.Unlock()
	l.save(ctx, true)
	for {
		fctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		msgs, err := cons.Fetch(1, jetstream.FetchContext(fctx))
		if err != nil {
			cancel()
			return err
		}
		for m := range msgs.Messages() {
			if err := l.one(ctx, m, q, send); err != nil {
				cancel()
				return err
			}
		}
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := msgs.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		l.save(ctx, false)
	}
}

// consumer returns the subscription's durable consumer, made when
// missing: from when the subscription was first saved, one record handed
// out at a time (so a record is never out twice at once).
func (l *loop) consumer(ctx context.Context) (jetstream.Consumer, error) {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := l.d.js.Stream(lctx, streams.JetStreamName(l.spec.Stream))
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("stream: no stream named %q (waiting for it)", l.spec.Stream)
	}
	if err != nil {
		return nil, err
	}
	name := subscription.ConsumerName(l.spec.Name)
	l.keyPrefix = name + "-" + strconv.FormatInt(st.CachedInfo().Created.Unix(), 36) + "-"
	c, err := st.Consumer(lctx, name)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, err
	}
	cfg := jetstream.ConsumerConfig{Durable: name, Description: "subscription " + l.spec.Name,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: l.d.o.AckWait, MaxAckPending: 1, MaxDeliver: -1,
		DeliverPolicy: jetstream.DeliverNewPolicy}
	if !l.spec.Since.IsZero() {
		since := l.spec.Since
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &since
	}
	c, err = st.CreateConsumer(lctx, cfg)
	if errors.Is(err, jetstream.ErrConsumerExists) {
		return st.Consumer(lctx, name)
	}
	return c, err
}

// one delivers a record (filtered, retried, given up) and acknowledges
// it; the error ends the loop's delivering (its record handed back).
func (l *loop) one(ctx context.Context, m jetstream.Msg, q *cfxql.Query, send sender) error {
	meta, err := m.Metadata()
	if err != nil {
		return err
	}
	seq, data := meta.Sequence.Stream, m.Data()
	if q != nil && !matches(q, data) {
		if err := ack(ctx, m); err != nil {
			return err
		}
		l.mu.Lock()
		l.state.Filtered++
		l.mu.Unlock()
		return nil
	}
	if len(data) > l.d.o.MaxBody {
		return l.giveUp(ctx, m, seq, fmt.Errorf("%d bytes, over the limit of %d", len(data), l.d.o.MaxBody))
	}
	// While it is delivered (and retried), the stream is told to wait.
	beat, stopBeat := context.WithCancel(ctx)
	defer stopBeat()
	go func() {
		t := time.NewTicker(l.d.o.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-beat.Done():
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	key := l.keyPrefix + strconv.FormatUint(seq, 10)
	first, wait := time.Now(), l.d.o.FirstBackoff
	for {
		err := l.attempt(ctx, key, seq, data, send)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			_ = m.Nak() // handed out again at once, to the next leader
			return ctx.Err()
		}
		var p permanent
		if errors.As(err, &p) || time.Since(first)+wait > l.d.o.MaxRetryTime {
			return l.giveUp(ctx, m, seq, err)
		}
		l.failed(subscription.StatusRetrying, fmt.Errorf("record %d: %v (trying again in %s)", seq, err, wait))
		l.save(ctx, true)
		select {
		case <-ctx.Done():
			_ = m.Nak()
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, l.d.o.MaxBackoff)
	}
	if err := ack(ctx, m); err != nil {
		return err
	}
	l.mu.Lock()
	l.state.Delivered++
	l.state.LastDelivery = subscription.Stamp(time.Now())
	l.state.Status = subscription.StatusDelivering
	l.mu.Unlock()
	return nil
}

// attempt is one try, within the bound of deliveries under way.
func (l *loop) attempt(ctx context.Context, key string, seq uint64, data []byte, send sender) error {
	select {
	case l.d.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-l.d.slots }()
	// A loop told to stop finishes the try under way (each is bounded by
	// the Timeout), so that a record delivered is also acknowledged.
	return send(context.WithoutCancel(ctx), key, seq, data)
}

// giveUp ends a record's delivery: counted failed, not handed out again.
func (l *loop) giveUp(ctx context.Context, m jetstream.Msg, seq uint64, why error) error {
	if err := m.TermWithReason(why.Error()); err != nil {
		return err
	}
	l.mu.Lock()
	l.state.Failed++
	l.mu.Unlock()
	l.failed(subscription.StatusDelivering, fmt.Errorf("record %d given up: %v", seq, why))
	l.save(ctx, true)
	return nil
}

// ack acknowledges a record and waits for the stream to confirm it; a
// loop stopping meanwhile still acknowledges what was delivered.
func ack(ctx context.Context, m jetstream.Msg) error {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return m.DoubleAck(actx)
}

// matches reports whether a record (a JSON object) satisfies the filter;
// a record that is not an object does not.
func matches(q *cfxql.Query, data []byte) bool {
	var row map[string]any
	if json.Unmarshal(data, &row) != nil || row == nil {
		return false
	}
	ok, err := q.Match(row)
	return err == nil && ok
}
