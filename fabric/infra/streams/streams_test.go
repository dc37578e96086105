package streams_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// openJS starts a fabric of one api-server (which makes the system
// streams) and returns the tenant's JetStream.
func openJS(t *testing.T) jetstream.JetStream {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestStreams: add, get, list, write, read (all, from a time, a number,
// following) and delete, the system streams there from the start and not
// deletable, and the errors of each.
func TestStreams(t *testing.T) {
	js := openJS(t)
	ctx := context.Background()
	list, err := streams.List(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(api.SystemStreams) {
		t.Fatalf("a new tenant has streams %v, want the system streams %v", list, api.SystemStreams)
	}
	for _, s := range list {
		if !s.System || s.RetentionHours != 24 || s.MaxMessages == 0 {
			t.Errorf("system stream %+v", s)
		}
	}
	if err := streams.Delete(ctx, js, api.StreamGatewayErrors); !errors.Is(err, streams.ErrSystem) {
		t.Errorf("deleting a system stream: %v", err)
	}
	for _, name := range api.SystemStreams {
		if _, err := streams.NewWriter(ctx, js, name); !errors.Is(err, streams.ErrSystemWrite) || !strings.HasPrefix(err.Error(), name+" is a system stream") {
			t.Errorf("writing into system stream %s: %v", name, err)
		}
	}

	info, err := streams.Add(ctx, js, streams.Config{Name: "syslog_events-a", Description: "test", MaxAge: time.Hour, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "syslog_events-a" || info.Description != "test" || info.RetentionHours != 1 || info.MaxSizeMB != 1 || info.System {
		t.Errorf("added %+v", info)
	}
	if _, err := streams.Add(ctx, js, streams.Config{Name: "syslog_events-a", Description: "test", MaxAge: time.Hour, MaxBytes: 1 << 20}); !errors.Is(err, streams.ErrExists) {
		t.Errorf("adding it again: %v", err)
	}
	for _, bad := range []string{"", "a b", "x\ny", ">", "a.b", "a*", "x>", "a/b", `a\b`, strings.Repeat("s", 129)} {
		if _, err := streams.Add(ctx, js, streams.Config{Name: bad}); !errors.Is(err, streams.ErrName) {
			t.Errorf("adding %q: %v", bad, err)
		}
	}

	// A stream an earlier version made under a name refused now stays
	// reachable: read, and deleted.
	old := streams.Config{Name: "old.name"}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: streams.JetStreamName(old.Name), Description: old.Name + "\n", Subjects: []string{streams.Subject(old.Name)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := streams.Get(ctx, js, old.Name); err != nil {
		t.Errorf("get a stream of an old name: %v", err)
	}
	if err := streams.Delete(ctx, js, old.Name); err != nil {
		t.Errorf("delete a stream of an old name: %v", err)
	}

	w, err := streams.NewWriter(ctx, js, "syslog_events-a")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		if err := w.Write(ctx, fmt.Appendf(nil, `{"n":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil || w.Written() != 5000 {
		t.Fatalf("wrote %d: %v", w.Written(), err)
	}
	mid := time.Now()
	time.Sleep(20 * time.Millisecond)
	for i := 5000; i < 5010; i++ {
		_ = w.Write(ctx, fmt.Appendf(nil, `{"n":%d}`, i))
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	read := func(o streams.ReadOptions) (first, n int) {
		t.Helper()
		first = -1
		got, err := streams.Read(ctx, js, "syslog_events-a", o, func(m streams.Message) error {
			var v int
			fmt.Sscanf(string(m.Data), `{"n":%d}`, &v)
			if first < 0 {
				first = v
			}
			if v != first+n {
				return fmt.Errorf("message %d out of order (%s)", n, m.Data)
			}
			n++
			return nil
		})
		if err != nil || got != n {
			t.Fatalf("Read(%+v): %d read, %d seen, %v", o, got, n, err)
		}
		return first, n
	}
	if first, n := read(streams.ReadOptions{}); first != 0 || n != 5010 {
		t.Errorf("all: from %d, %d messages", first, n)
	}
	if first, n := read(streams.ReadOptions{From: mid}); first != 5000 || n != 10 {
		t.Errorf("from a time: from %d, %d messages", first, n)
	}
	if first, n := read(streams.ReadOptions{MaxRows: 7}); first != 0 || n != 7 {
		t.Errorf("max rows: from %d, %d messages", first, n)
	}
	if _, n := read(streams.ReadOptions{From: time.Now().Add(time.Hour)}); n != 0 {
		t.Errorf("from the future: %d messages", n)
	}
	// Following: the messages written after it started come too, until
	// the context ends.
	fctx, cancel := context.WithCancel(ctx)
	seen := make(chan int, 100)
	errc := make(chan error, 1)
	go func() {
		_, err := streams.Read(fctx, js, "syslog_events-a", streams.ReadOptions{From: time.Now(), Follow: true}, func(m streams.Message) error {
			seen <- len(m.Data)
			return nil
		})
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond)
	_ = w.Write(ctx, []byte(`{"late":true}`))
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-seen:
	case <-time.After(5 * time.Second):
		t.Fatal("a message written while following did not come")
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("following ended with %v", err)
	}

	got, err := streams.Get(ctx, js, "syslog_events-a")
	if err != nil || got.Messages != 5011 || got.FirstTime == "" {
		t.Errorf("get: %+v %v", got, err)
	}
	if err := streams.Delete(ctx, js, "syslog_events-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := streams.Get(ctx, js, "syslog_events-a"); !errors.Is(err, streams.ErrNotFound) {
		t.Errorf("get after delete: %v", err)
	}
	if _, err := streams.Read(ctx, js, "nope", streams.ReadOptions{}, func(streams.Message) error { return nil }); !errors.Is(err, streams.ErrNotFound) {
		t.Errorf("read of a missing stream: %v", err)
	}
	if err := streams.Delete(ctx, js, "nope"); !errors.Is(err, streams.ErrNotFound) {
		t.Errorf("delete of a missing stream: %v", err)
	}
}

// TestDurableReads: reads through a durable reader go on where the last
// stopped, readers of one name share the records (each read once), a
// read that stops at max_rows leaves none of the rest waiting for
// redelivery, a following read gets records written after it started,
// and a bad name is refused.
func TestDurableReads(t *testing.T) {
	js := openJS(t)
	ctx := context.Background()
	if _, err := streams.Add(ctx, js, streams.Config{Name: "work"}); err != nil {
		t.Fatal(err)
	}
	write := func(from, to int) {
		w, err := streams.NewWriter(ctx, js, "work")
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i++ {
			if err := w.Write(ctx, []byte(fmt.Sprintf(`{"i":%d}`, i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 10)
	seen := map[string]int{}
	read := func(o streams.ReadOptions) int {
		t.Helper()
		o.Durable = "svc"
		n, err := streams.Read(ctx, js, "work", o, func(m streams.Message) error { seen[string(m.Data)]++; return nil })
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	start := time.Now()
	if n := read(streams.ReadOptions{MaxRows: 4}); n != 4 {
		t.Fatalf("first batch: %d records, want 4", n)
	}
	if n := read(streams.ReadOptions{MaxRows: 4}); n != 4 {
		t.Fatalf("second batch: %d records, want 4", n)
	}
	if n := read(streams.ReadOptions{}); n != 2 {
		t.Fatalf("the rest: %d records, want 2", n)
	}
	if n := read(streams.ReadOptions{}); n != 0 {
		t.Fatalf("read to the end: %d records, want 0", n)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("four batched reads took %s: records waited for redelivery", time.Since(start))
	}
	// Following: records written after the read started.
	go func() { time.Sleep(300 * time.Millisecond); write(10, 13) }()
	fctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	n, err := streams.Read(fctx, js, "work", streams.ReadOptions{Durable: "svc", Follow: true, MaxRows: 3}, func(m streams.Message) error { seen[string(m.Data)]++; return nil })
	if err != nil || n != 3 {
		t.Fatalf("following read: %d records, %v", n, err)
	}
	for i := 0; i < 13; i++ {
		if k := fmt.Sprintf(`{"i":%d}`, i); seen[k] != 1 {
			t.Errorf("record %s read %d times", k, seen[k])
		}
	}
	if _, err := streams.Read(ctx, js, "work", streams.ReadOptions{Durable: "a b"}, func(streams.Message) error { return nil }); err == nil {
		t.Error("a durable name with a space was taken")
	}
}
