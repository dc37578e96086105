package eventgw

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// sink publishes an endpoint's records to its stream in batches. A record
// leaves the sink's queue only once the stream has acknowledged it: while
// the stream cannot be reached (a NATS server restarting), the batch is
// tried again, each record with the same message id, so that the
// stream's duplicate window drops the copies a lost acknowledgement
// would make. The queue is bounded: put blocks when it is full (TCP: the
// sender is slowed down, nothing is lost) or drops (UDP and traps, which
// have no way to slow a sender down; counted).
type sink struct {
	js      jetstream.JetStream
	stream  string
	subject string
	idBase  string // of message ids: pod, endpoint, start time
	batch   int
	queue   chan []byte
	seq     uint64
	limit   *byteLimit // the bytes in flight of the gateway's tenant

	published, dropped atomic.Int64
	lastErr            atomic.Value // string: why the last publish failed ("" once one succeeds)
}

// queueSize is how many records a sink holds that its stream has not
// acknowledged yet.
const queueSize = 16384

// batchWait is how long a sink waits for a batch to fill.
const batchWait = 50 * time.Millisecond

func newSink(js jetstream.JetStream, stream, podID, endpoint string, batch int, limit *byteLimit) *sink {
	if batch <= 0 {
		batch = 2000
	}
	s := &sink{js: js, stream: stream, subject: streams.Subject(stream), batch: batch, queue: make(chan []byte, queueSize), limit: limit,
		idBase: podID + "." + endpoint + "." + strconv.FormatInt(time.Now().UnixNano(), 36) + "."}
	s.lastErr.Store("")
	return s
}

// put queues a record: blocking until there is room (or ctx ends) when
// block, else dropping it when the queue is full. It reports whether the
// record was queued. The record's bytes count in the tenant's bytes in
// flight until the stream acknowledges it; over that limit it waits
// (block) or is dropped too.
func (s *sink) put(ctx context.Context, rec []byte, block bool) bool {
	n := int64(len(rec))
	if !s.limit.take(ctx, n, block) {
		if !block {
			s.dropped.Add(1)
		}
		return false
	}
	if block {
		select {
		case s.queue <- rec:
			return true
		case <-ctx.Done():
			s.limit.give(n)
			return false
		}
	}
	select {
	case s.queue <- rec:
		return true
	default:
		s.limit.give(n)
		s.dropped.Add(1)
		return false
	}
}

// forget gives back the bytes of what is still queued once the sink has
// stopped publishing (those records are lost with the gateway).
func (s *sink) forget() {
	for {
		select {
		case rec := <-s.queue:
			s.limit.give(int64(len(rec)))
		default:
			return
		}
	}
}

// batchesInFlight is how many batches a sink publishes at once: the next
// one is sent while the stream acknowledges the last, so the stream never
// waits for the gateway between batches.
const batchesInFlight = 2

// run publishes the queued records until ctx ends, then what is queued
// (for at most drainWait).
func (s *sink) run(ctx context.Context) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, batchesInFlight)
	defer wg.Wait()
	batch := make([][]byte, 0, s.batch)
	for {
		select {
		case rec := <-s.queue:
			batch = append(batch, rec)
		case <-ctx.Done():
			wg.Wait()
			s.drain(batch)
			s.forget()
			return
		}
		timer := time.NewTimer(batchWait)
	fill:
		for len(batch) < s.batch {
			select {
			case rec := <-s.queue:
				batch = append(batch, rec)
			case <-timer.C:
				break fill
			case <-ctx.Done():
				break fill
			}
		}
		timer.Stop()
		ids := s.ids(len(batch))
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			s.drain(batch)
			s.forget()
			return
		}
		wg.Add(1)
		go func(batch [][]byte) {
			defer wg.Done()
			defer func() { <-slots }()
			s.publish(ctx, batch, ids)
		}(batch)
		batch = make([][]byte, 0, s.batch)
	}
}

// ids returns the message ids of the next n records, in order.
func (s *sink) ids(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		s.seq++
		ids[i] = s.idBase + strconv.FormatUint(s.seq, 36)
	}
	return ids
}

// drainWait bounds how long a stopping sink keeps publishing its queue.
const drainWait = 5 * time.Second

func (s *sink) drain(batch [][]byte) {
	ctx, cancel := context.WithTimeout(context.Background(), drainWait)
	defer cancel()
	for {
		for len(batch) < s.batch {
			select {
			case rec := <-s.queue:
				batch = append(batch, rec)
				continue
			default:
			}
			break
		}
		if len(batch) == 0 {
			return
		}
		if !s.publish(ctx, batch, s.ids(len(batch))) {
			return
		}
		batch = batch[:0]
	}
}

// ackWait bounds the wait for a batch's acknowledgements.
const ackWait = 5 * time.Second

// publish publishes a batch, its records with the message ids ids, until
// the stream acknowledges every record or ctx ends (false then), trying again with a growing pause. The bytes
// of each record count in flight until it is acknowledged, or until the
// sink gives up on it.
func (s *sink) publish(ctx context.Context, batch [][]byte, ids []string) (done bool) {
	acked := make([]bool, len(batch))
	defer func() {
		for i, ok := range acked {
			if !ok {
				s.limit.give(int64(len(batch[i])))
			}
		}
	}()
	pending := make([]int, len(batch))
	for i := range batch {
		pending[i] = i
	}
	type inflight struct {
		i int
		f jetstream.PubAckFuture
	}
	pause := 100 * time.Millisecond
	for {
		var sent []inflight
		var failed []int
		var why error
		for _, i := range pending {
			f, err := s.js.PublishMsgAsync(&nats.Msg{Subject: s.subject, Data: batch[i], Header: nats.Header{jetstream.MsgIDHeader: []string{ids[i]}}})
			if err != nil {
				failed, why = append(failed, i), err
				continue
			}
			sent = append(sent, inflight{i, f})
		}
		timer := time.NewTimer(ackWait)
	acks:
		for k, x := range sent {
			select {
			case <-x.f.Ok():
				s.published.Add(1)
				acked[x.i] = true
				s.limit.give(int64(len(batch[x.i])))
			case err := <-x.f.Err():
				failed, why = append(failed, x.i), err
			case <-timer.C:
				// The rest are sent again, with the same ids: the stream
				// keeps one copy of those it did store.
				for _, y := range sent[k:] {
					failed = append(failed, y.i)
				}
				why = fmt.Errorf("timed out after %s waiting for stream %s to acknowledge", ackWait, s.stream)
				break acks
			case <-ctx.Done():
				timer.Stop()
				return false
			}
		}
		timer.Stop()
		if len(failed) == 0 {
			s.lastErr.Store("")
			return true
		}
		s.lastErr.Store(why.Error())
		pending = failed
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return false
		}
		pause = min(2*pause, 2*time.Second)
	}
}
