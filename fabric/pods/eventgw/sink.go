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
// tried again, and what the stream stored though its acknowledgement was
// lost is not sent twice (each record carries its id, RecordIDHeader, and
// the sink reads back which ids the stream holds before it sends again).
// The queue is bounded: put blocks when it is full (TCP: the sender is
// slowed down, nothing is lost) or drops (UDP and traps, which have no
// way to slow a sender down; counted).
type sink struct {
	js      jetstream.JetStream
	stream  string
	subject string
	idBase  string // of message ids: pod, endpoint, start time
	batch   int
	queue   chan []byte
	seq     uint64
	limit   *byteLimit // the bytes in flight of the gateway's tenant

	// The last stream sequence acknowledged to the sink (once known):
	// every record sent after has a later one.
	lastSeq  atomic.Uint64
	seqKnown atomic.Bool

	published, dropped atomic.Int64
	lastErr            atomic.Value // string: why the last publish failed ("" once one succeeds)
}

// RecordIDHeader is the header naming each record a gateway publishes
// (pod, endpoint, start, number). The stream does not index it, as it
// would a Nats-Msg-Id: that index of every id in the duplicate window
// cost the stream a fifth of its ingest rate, and more the longer it
// ran; the sink reads the ids back only after an acknowledgement went
// missing.
const RecordIDHeader = "Fabric-Record-Id"

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

// settleWait is how long, after a round trip to the server, a sink
// waits for the acknowledgements still due before it asks the stream
// which records it holds: the server then holds all the sink sent, and
// the stream stores what it holds in microseconds a record.
const settleWait = time.Second

// inflight is a record sent, waiting for its acknowledgement.
type inflight struct {
	i int // in the batch
	f jetstream.PubAckFuture
}

// publish publishes a batch, its records named by ids, until the stream
// acknowledges every record or ctx ends (false then), trying again with a
// growing pause. Before a record is sent again the sink makes sure the
// stream does not hold it already (stored, its acknowledgement lost): so
// each record is stored once, however long the stream was away. The
// bytes of each record count in flight until it is acknowledged, or until
// the sink gives up on it.
func (s *sink) publish(ctx context.Context, batch [][]byte, ids []string) (done bool) {
	b := &tracked{s: s, batch: batch, ids: ids, acked: make([]bool, len(batch))}
	defer b.giveBack()
	pending := make([]int, len(batch))
	for i := range batch {
		pending[i] = i
	}
	// from: a stream sequence that no record of the batch can be at or
	// before (learned once, then each acknowledgement raises it).
	from, known := uint64(0), false
	var sent []inflight // of the last try
	pause := 100 * time.Millisecond
	for try := 0; ; try++ {
		if try > 0 {
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return false
			}
			pause = min(2*pause, 2*time.Second)
		}
		var why error
		switch {
		case !known:
			if from, why = s.floor(ctx); why == nil {
				known = true
			}
		case sent != nil:
			// Some records were sent and not acknowledged: keep those the
			// stream stored, send the others again.
			pending, why = b.unstored(ctx, from, pending, sent)
			if why == nil {
				sent = nil
			}
		}
		if why != nil {
			s.lastErr.Store(why.Error())
			continue
		}
		if len(pending) == 0 {
			s.lastErr.Store("")
			return true
		}
		var failed []int
		for _, i := range pending {
			f, err := s.js.PublishMsgAsync(&nats.Msg{Subject: s.subject, Data: batch[i], Header: nats.Header{RecordIDHeader: []string{ids[i]}}})
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
			case pa := <-x.f.Ok():
				s.sawSeq(pa.Sequence)
				b.ack(x.i)
			case err := <-x.f.Err():
				failed, why = append(failed, x.i), err
			case <-timer.C:
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
	}
}

// floor returns a stream sequence no record the sink sends from now on
// can be at or before: the last it saw acknowledged or, before the first,
// the stream's last.
func (s *sink) floor(ctx context.Context) (uint64, error) {
	if s.seqKnown.Load() {
		return s.lastSeq.Load(), nil
	}
	ctx, cancel := context.WithTimeout(ctx, ackWait)
	defer cancel()
	st, err := s.js.Stream(ctx, streams.JetStreamName(s.stream))
	if err != nil {
		return 0, fmt.Errorf("stream %s: %w", s.stream, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("stream %s: %w", s.stream, err)
	}
	s.sawSeq(info.State.LastSeq)
	s.seqKnown.Store(true)
	return s.lastSeq.Load(), nil
}

// sawSeq raises the last stream sequence the sink saw acknowledged.
func (s *sink) sawSeq(seq uint64) {
	for {
		cur := s.lastSeq.Load()
		if seq <= cur || s.lastSeq.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// tracked is a batch being published: which of its records the stream
// has acknowledged (each counted published, its bytes given back).
type tracked struct {
	s     *sink
	batch [][]byte
	ids   []string
	acked []bool
}

// ack takes record i as stored, once.
func (b *tracked) ack(i int) {
	if !b.acked[i] {
		b.acked[i] = true
		b.s.published.Add(1)
		b.s.limit.give(int64(len(b.batch[i])))
	}
}

// giveBack gives back the bytes of the records the sink gives up on.
func (b *tracked) giveBack() {
	for i, ok := range b.acked {
		if !ok {
			b.s.limit.give(int64(len(b.batch[i])))
		}
	}
}

// unstored returns the records of pending the stream does not hold,
// acknowledging those it does. sent are the records last sent: a round
// trip to the server makes sure none is still on its way, and their
// acknowledgements still due get settleWait to come; then the stream's
// records after from tell which of the rest it stored.
func (b *tracked) unstored(ctx context.Context, from uint64, pending []int, sent []inflight) ([]int, error) {
	s := b.s
	fctx, cancel := context.WithTimeout(ctx, ackWait)
	err := s.js.Conn().FlushWithContext(fctx)
	cancel()
	if err != nil {
		return pending, fmt.Errorf("stream %s: %w", s.stream, err)
	}
	settle := time.NewTimer(settleWait)
	defer settle.Stop()
wait:
	for _, x := range sent {
		select {
		case pa := <-x.f.Ok():
			s.sawSeq(pa.Sequence)
			b.ack(x.i)
		case <-x.f.Err():
		case <-settle.C:
			break wait
		case <-ctx.Done():
			return pending, ctx.Err()
		}
	}
	want := map[string]int{}
	for _, i := range pending {
		want[b.ids[i]] = i
	}
	_, err = streams.Read(ctx, s.js, s.stream, streams.ReadOptions{AfterSeq: from}, func(m streams.Message) error {
		if i, ok := want[m.Header.Get(RecordIDHeader)]; ok {
			b.ack(i)
		}
		return nil
	})
	if err != nil {
		return pending, err
	}
	rest := pending[:0]
	for _, i := range pending {
		if !b.acked[i] {
			rest = append(rest, i)
		}
	}
	return rest, nil
}
