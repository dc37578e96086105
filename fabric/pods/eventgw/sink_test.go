package eventgw

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestSinkKeepsWhatTheStreamStored: before a batch is sent again, the
// records the stream stored though their acknowledgements never came
// (as when a server dies between storing and answering) are taken as
// published, the acknowledgements still on their way are waited for, and
// only the rest is sent again; then the stream holds each record once.
func TestSinkKeepsWhatTheStreamStored(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := streams.Add(ctx, js, streams.Config{Name: "events"}); err != nil {
		t.Fatal(err)
	}
	// Someone else's record before the sink starts.
	if _, err := js.Publish(ctx, streams.Subject("events"), []byte("other")); err != nil {
		t.Fatal(err)
	}
	s := newSink(js, "events", "pod", "ep", 10, newByteLimit(1<<20))
	from, err := s.floor(ctx)
	if err != nil || from != 1 {
		t.Fatalf("floor %d, %v; want 1", from, err)
	}
	batch := make([][]byte, 10)
	for i := range batch {
		batch[i] = []byte{'r', byte('0' + i)}
	}
	ids := s.ids(len(batch))
	store := func(i int) {
		if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: s.subject, Data: batch[i], Header: nats.Header{RecordIDHeader: []string{ids[i]}}}); err != nil {
			t.Fatal(err)
		}
	}
	// Records 0, 1 and 4 were stored, their acknowledgements lost; 5 and
	// 6 are on their way (their acknowledgements come during the wait);
	// the others never reached the stream. A record of another sink with
	// an id of the same number does not count.
	store(0)
	store(1)
	store(4)
	other := newSink(js, "events", "pod2", "ep", 10, newByteLimit(1<<20)).ids(10)
	if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: s.subject, Data: []byte("x"), Header: nats.Header{RecordIDHeader: []string{other[2]}}}); err != nil {
		t.Fatal(err)
	}
	var sent []inflight
	for _, i := range []int{5, 6} {
		f, err := js.PublishMsgAsync(&nats.Msg{Subject: s.subject, Data: batch[i], Header: nats.Header{RecordIDHeader: []string{ids[i]}}})
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, inflight{i, f})
	}
	b := &tracked{s: s, batch: batch, ids: ids, acked: make([]bool, len(batch))}
	rest, err := b.unstored(ctx, from, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, sent)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 3, 7, 8, 9}; !slices.Equal(rest, want) {
		t.Fatalf("to send again: %v, want %v", rest, want)
	}

	// publish sends the batch: the stream ends with each record once.
	s2 := newSink(js, "events", "pod3", "ep", 10, newByteLimit(1<<20))
	if !s2.publish(ctx, batch, s2.ids(len(batch))) || s2.published.Load() != int64(len(batch)) {
		t.Fatalf("published %d of %d", s2.published.Load(), len(batch))
	}
	if s2.lastSeq.Load() != 17 {
		t.Errorf("the last sequence the sink saw: %d, want 17", s2.lastSeq.Load())
	}
}
