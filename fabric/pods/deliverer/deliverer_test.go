package deliverer_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/subscription"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/deliverer"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// tenantConn is a tenant's connection, JetStream and artifact store.
type tenantConn struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	repo *artifact.Repo
	sec  *secret.Store
}

func connect(t *testing.T, f *fabrictest.Fabric, name string) *tenantConn {
	t.Helper()
	nc, err := bus.Connect(f.Configs[name], "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	st, err := tenant.New(nc).Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &tenantConn{nc: nc, js: js, repo: &artifact.Repo{Store: st}, sec: &secret.Store{Store: st}}
}

func (c *tenantConn) write(t *testing.T, stream string, from, to int) {
	t.Helper()
	ctx := context.Background()
	w, err := streams.NewWriter(ctx, c.js, stream)
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < to; i++ {
		kind := "odd"
		if i%2 == 0 {
			kind = "even"
		}
		if err := w.Write(ctx, fmt.Appendf(nil, `{"n":%d,"kind":%q}`, i, kind)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func (c *tenantConn) subscribe(t *testing.T, doc map[string]any) {
	t.Helper()
	text, _ := json.Marshal(doc)
	if _, err := c.repo.Add(context.Background(), artifact.Subscription, text, false); err != nil {
		t.Fatal(err)
	}
}

// receiver is an HTTPS receiver that checks each delivery's signature
// and counts the deliveries of each record and of each idempotency key.
type receiver struct {
	srv      *httptest.Server
	key      []byte
	mu       sync.Mutex
	byN      map[int]int
	byKey    map[string]int
	badSig   int
	received int
}

func newReceiver(t *testing.T, key []byte) *receiver {
	r := &receiver{key: key, byN: map[int]int{}, byKey: map[string]int{}}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		mac := hmac.New(sha256.New, r.key)
		mac.Write(body)
		want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
		var rec struct {
			N int `json:"n"`
		}
		_ = json.Unmarshal(body, &rec)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.received++
		if req.Header.Get(subscription.SignatureHeader) != want {
			r.badSig++
		}
		r.byN[rec.N]++
		r.byKey[req.Header.Get(subscription.IdempotencyHeader)]++
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) ca() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw}))
}

func (r *receiver) distinct() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byN)
}

// streamCounts reads a stream and counts each record's n.
func streamCounts(t *testing.T, js jetstream.JetStream, name string) map[int]int {
	t.Helper()
	out := map[int]int{}
	_, err := streams.Read(context.Background(), js, name, streams.ReadOptions{}, func(m streams.Message) error {
		var rec struct {
			N    int    `json:"n"`
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(m.Data, &rec); err != nil || rec.Kind != "even" {
			t.Errorf("record %s in the target stream", m.Data)
		}
		out[rec.N]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func waitFor(t *testing.T, what string, timeout time.Duration, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestDeliveryAcrossRestart: of 10,000 records written to a stream, the
// 5,000 a filter matches are delivered each exactly once to another
// stream and to an HTTPS receiver (signed with the subscription's
// secret), although the whole fabric restarts in the middle; the
// subscriptions' state counts them. Another tenant's subscription naming
// the first tenant's stream as its target reaches nothing.
func TestDeliveryAcrossRestart(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.Scheduler},
		Deliverer: deliverer.Options{Period: 300 * time.Millisecond, FirstBackoff: 50 * time.Millisecond, MaxBackoff: time.Second}})
	a, b := connect(t, f, "a"), connect(t, f, "b")
	ctx := context.Background()
	for _, s := range []string{"events", "copies"} {
		if _, err := streams.Add(ctx, a.js, streams.Config{Name: s}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := streams.Add(ctx, b.js, streams.Config{Name: "events"}); err != nil {
		t.Fatal(err)
	}
	key := []byte("s3cret-hook-key")
	if _, err := a.sec.Put(ctx, "hook-key", "", key, false); err != nil {
		t.Fatal(err)
	}
	hook := newReceiver(t, key)
	a.subscribe(t, map[string]any{"name": "to-stream", "stream": "events", "filter": "kind = 'even'",
		"target": map[string]any{"type": "stream", "stream": "copies"}})
	a.subscribe(t, map[string]any{"name": "to-hook", "stream": "events", "filter": "kind = 'even'",
		"target": map[string]any{"type": "webhook", "url": hook.srv.URL, "secret": "hook-key", "ca": hook.ca()}})
	b.subscribe(t, map[string]any{"name": "steal", "stream": "events",
		"target": map[string]any{"type": "stream", "stream": "copies"}})

	a.write(t, "events", 0, 5000)
	b.write(t, "events", 0, 10)
	waitFor(t, "the first deliveries", 60*time.Second, func() bool { return hook.distinct() > 200 })
	f.Restart(t, 500*time.Millisecond)
	before := hook.distinct()
	t.Logf("%d records at the receiver when the fabric was back", before)
	if before >= 5000 {
		t.Error("the records written before the restart were delivered before it: the restart was not in the middle")
	}
	a = connect(t, f, "a")
	a.write(t, "events", 5000, 10000)

	waitFor(t, "5,000 records at the receiver", 3*time.Minute, func() bool { return hook.distinct() == 5000 })
	waitFor(t, "5,000 records in the target stream", 3*time.Minute, func() bool {
		i, err := streams.Get(ctx, a.js, "copies")
		return err == nil && i.Messages >= 5000
	})
	time.Sleep(time.Second) // anything delivered twice would come now
	hook.mu.Lock()
	for n := 0; n < 10000; n += 2 {
		if hook.byN[n] != 1 {
			t.Errorf("record %d reached the receiver %d times", n, hook.byN[n])
		}
	}
	if hook.received != 5000 || hook.badSig != 0 || len(hook.byKey) != 5000 {
		t.Errorf("receiver: %d requests, %d badly signed, %d keys; want 5000, 0, 5000", hook.received, hook.badSig, len(hook.byKey))
	}
	hook.mu.Unlock()
	counts := streamCounts(t, a.js, "copies")
	for n := 0; n < 10000; n += 2 {
		if counts[n] != 1 {
			t.Errorf("record %d is %d times in the target stream", n, counts[n])
		}
	}
	if len(counts) != 5000 {
		t.Errorf("the target stream holds %d distinct records, want 5000", len(counts))
	}
	for _, name := range []string{"to-stream", "to-hook"} {
		waitFor(t, "the state of "+name, 10*time.Second, func() bool {
			s, err := subscription.Get(ctx, a.js, name, "events", true)
			return err == nil && s.Delivered == 5000 && s.Filtered == 5000 && s.Pending == 0
		})
		s, _ := subscription.Get(ctx, a.js, name, "events", true)
		if s.Failed != 0 || s.LastDelivery == "" || s.Status != subscription.StatusDelivering {
			t.Errorf("state of %s: %+v", name, s)
		}
	}
	// Tenant b's subscription finds no stream "copies" of its own.
	waitFor(t, "tenant b's refusal", 30*time.Second, func() bool {
		s, err := subscription.Get(ctx, b.js, "steal", "events", true)
		return err == nil && strings.Contains(s.LastError, `no stream named "copies"`) && s.Delivered == 0
	})
}

// TestHostileTargets: each subscription's webhook misbehaves in its own
// way, and none holds the deliverer: a failing receiver is retried with
// back-off until it answers; redirects are not followed and a refusal is
// not retried; a slow receiver is given up after the retry time; a huge
// answer is not read; a record over the body limit is not sent; a
// missing secret is reported; deliveries under way are bounded, and so
// are the subscriptions delivering at once.
func TestHostileTargets(t *testing.T) {
	o := deliverer.Options{Period: 200 * time.Millisecond, Timeout: 500 * time.Millisecond, FirstBackoff: 50 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond, MaxRetryTime: 2 * time.Second, MaxInFlight: 2, MaxActive: 10, MaxBody: 200}
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler}, Deliverer: o})
	a := connect(t, f, "a")
	ctx := context.Background()
	if _, err := streams.Add(ctx, a.js, streams.Config{Name: "ev"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	hits := map[string]int{}
	inGate, maxGate := 0, 0
	mux := http.NewServeMux()
	count := func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		hits[path]++
		return hits[path]
	}
	mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		if count("/flaky") <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		count("/redirect")
		http.Redirect(w, r, "/redirect", http.StatusFound)
	})
	mux.HandleFunc("/refused", func(w http.ResponseWriter, r *http.Request) {
		count("/refused")
		w.WriteHeader(http.StatusBadRequest)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		count("/slow")
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	hugeSent := 0 // the most MB one answer got out
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		count("/huge")
		chunk := make([]byte, 1<<20)
		sent := 0
		defer func() {
			mu.Lock()
			hugeSent = max(hugeSent, sent)
			mu.Unlock()
		}()
		for range 1000 { // 1 GB, unless the client stops reading
			if _, err := w.Write(chunk); err != nil {
				return
			}
			sent++
		}
	})
	mux.HandleFunc("/gate", func(w http.ResponseWriter, r *http.Request) {
		count("/gate")
		mu.Lock()
		inGate++
		maxGate = max(maxGate, inGate)
		mu.Unlock()
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		inGate--
		mu.Unlock()
	})
	srv := httptest.NewServer(mux)
	defer func() { srv.CloseClientConnections(); srv.Close() }()
	hook := func(name, path string, extra map[string]any) {
		target := map[string]any{"type": "webhook", "url": srv.URL + path}
		for k, v := range extra {
			target[k] = v
		}
		a.subscribe(t, map[string]any{"name": name, "stream": "ev", "target": target})
	}
	hook("flaky", "/flaky", nil)
	hook("redirect", "/redirect", nil)
	hook("refused", "/refused", nil)
	hook("slow", "/slow", nil)
	hook("huge", "/huge", nil)
	hook("nosecret", "/gate", map[string]any{"secret": "missing"})
	for _, g := range []string{"gate1", "gate2", "gate3", "gate4"} {
		hook(g, "/gate", nil)
	}
	hook("zz-over", "/gate", nil) // the eleventh: over MaxActive
	big := `{"n":2,"pad":"` + strings.Repeat("x", 300) + `"}`
	w, err := streams.NewWriter(ctx, a.js, "ev")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []string{big, `{"n":0}`, `{"n":1}`} {
		if err := w.Write(ctx, []byte(rec)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	state := func(name string) subscription.State {
		s, err := subscription.Get(ctx, a.js, name, "ev", true)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Every delivering subscription ends with its three records settled:
	// the big one given up, the two others as its receiver has it (and
	// the last error is the receiver's, when it has one).
	tests := []struct {
		name              string
		delivered, failed int64
		lastError         string
	}{
		{"flaky", 2, 1, "HTTP 503"},
		{"redirect", 0, 3, "redirects are not followed"},
		{"refused", 0, 3, "HTTP 400: the receiver refused the record"},
		{"slow", 0, 3, "Client.Timeout"},
		{"huge", 2, 1, "over the limit of 200"},
		{"gate1", 2, 1, "over the limit of 200"},
		{"gate4", 2, 1, "over the limit of 200"},
	}
	for _, tc := range tests {
		waitFor(t, tc.name+" to settle", 30*time.Second, func() bool {
			s := state(tc.name)
			return s.Delivered+s.Failed == 3
		})
		s := state(tc.name)
		if s.Delivered != tc.delivered || s.Failed != tc.failed || s.Pending != 0 || !strings.Contains(s.LastError, tc.lastError) {
			t.Errorf("%s: state %+v, want %d delivered, %d failed, last error with %q", tc.name, s, tc.delivered, tc.failed, tc.lastError)
		}
	}
	mu.Lock()
	if hits["/redirect"] != 2 || hits["/refused"] != 2 {
		t.Errorf("a redirect or a refusal was tried again, or a redirect followed: %v", hits)
	}
	if hits["/slow"] < 4 {
		t.Errorf("the slow receiver was tried %d times, want retries", hits["/slow"])
	}
	if hugeSent > 64 {
		t.Errorf("a huge answer was read: %d MB of it went out", hugeSent)
	}
	if maxGate > o.MaxInFlight {
		t.Errorf("%d deliveries under way at once, over the limit of %d", maxGate, o.MaxInFlight)
	}
	mu.Unlock()
	if s := state("nosecret"); s.Delivered != 0 || !strings.Contains(s.LastError, `target.secret: no secret named "missing"`) || s.Status != subscription.StatusWaiting {
		t.Errorf("nosecret: %+v", s)
	}
	if s := state("zz-over"); s.Delivered != 0 || !strings.Contains(s.LastError, "over the limit of 10 subscriptions") {
		t.Errorf("zz-over: %+v", s)
	}
}

// TestLifecycle: a disabled subscription delivers nothing and, enabled
// again, goes on where it stopped (the records written meanwhile
// included, none twice); a deleted one's consumer and state go; records
// written before a subscription was added are not delivered.
func TestLifecycle(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler},
		Deliverer: deliverer.Options{Period: 200 * time.Millisecond}})
	a := connect(t, f, "a")
	ctx := context.Background()
	for _, s := range []string{"events", "copies"} {
		if _, err := streams.Add(ctx, a.js, streams.Config{Name: s}); err != nil {
			t.Fatal(err)
		}
	}
	a.write(t, "events", 0, 10) // before the subscription: not delivered
	time.Sleep(10 * time.Millisecond)
	a.subscribe(t, map[string]any{"name": "copy", "stream": "events", "target": map[string]any{"type": "stream", "stream": "copies"}})
	a.write(t, "events", 10, 20)
	messages := func() uint64 {
		i, err := streams.Get(ctx, a.js, "copies")
		if err != nil {
			t.Fatal(err)
		}
		return i.Messages
	}
	waitFor(t, "10 copies", 20*time.Second, func() bool { return messages() == 10 })
	if _, err := a.repo.SetEnabled(ctx, artifact.Subscription, "copy", false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the loop stops
	a.write(t, "events", 20, 30)
	time.Sleep(time.Second)
	if n := messages(); n != 10 {
		t.Fatalf("a disabled subscription delivered: %d copies", n)
	}
	if s, _ := subscription.Get(ctx, a.js, "copy", "events", false); s.Status != subscription.StatusDisabled || s.Pending != 10 {
		t.Errorf("disabled: %+v", s)
	}
	if _, err := a.repo.SetEnabled(ctx, artifact.Subscription, "copy", true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "20 copies", 20*time.Second, func() bool { return messages() == 20 })
	counts := map[int]int{}
	_, _ = streams.Read(ctx, a.js, "copies", streams.ReadOptions{}, func(m streams.Message) error {
		var rec struct{ N int }
		_ = json.Unmarshal(m.Data, &rec)
		counts[rec.N]++
		return nil
	})
	for n := 10; n < 30; n++ {
		if counts[n] != 1 {
			t.Errorf("record %d copied %d times", n, counts[n])
		}
	}
	// Moved to another stream while disabled: the old consumer goes once
	// it delivers again.
	if _, err := streams.Add(ctx, a.js, streams.Config{Name: "events2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.repo.SetEnabled(ctx, artifact.Subscription, "copy", false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the loop stops, its consumer kept
	moved, _ := json.Marshal(map[string]any{"name": "copy", "stream": "events2", "enabled": false,
		"target": map[string]any{"type": "stream", "stream": "copies"}})
	if _, err := a.repo.Add(ctx, artifact.Subscription, moved, true); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if _, err := a.repo.SetEnabled(ctx, artifact.Subscription, "copy", true); err != nil {
		t.Fatal(err)
	}
	a.write(t, "events2", 100, 105)
	waitFor(t, "25 copies", 20*time.Second, func() bool { return messages() == 25 })
	waitFor(t, "the old consumer to go", 20*time.Second, func() bool {
		_, err := a.js.Consumer(ctx, streams.JetStreamName("events"), subscription.ConsumerName("copy"))
		return err != nil
	})
	if err := a.repo.Delete(ctx, artifact.Subscription, "copy"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the consumer and state to go", 20*time.Second, func() bool {
		_, err := a.js.Consumer(ctx, streams.JetStreamName("events2"), subscription.ConsumerName("copy"))
		s, lerr := subscription.Load(ctx, a.js, "copy")
		return err != nil && lerr == nil && s == (subscription.State{})
	})
}

// TestCrashBetweenPostAndAck: a deliverer whose connection dies after
// the receiver took a record, before its acknowledgement, leaves that
// record to be delivered again by the next one, with the same
// idempotency key: a receiver that drops keys it saw has each record
// once.
func TestCrashBetweenPostAndAck(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}}) // no scheduler: the test runs the deliverers
	a := connect(t, f, "a")
	ctx := context.Background()
	if _, err := streams.Add(ctx, a.js, streams.Config{Name: "events"}); err != nil {
		t.Fatal(err)
	}
	first, err := bus.Connect(f.Configs["a"], "first-deliverer")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	var mu sync.Mutex
	keys := map[string]int{}
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		requests++
		keys[r.Header.Get(subscription.IdempotencyHeader)]++
		if requests == 5 {
			first.Close() // the first deliverer dies before it acknowledges
		}
	}))
	defer srv.Close()
	a.subscribe(t, map[string]any{"name": "hook", "stream": "events", "target": map[string]any{"type": "webhook", "url": srv.URL}})
	a.write(t, "events", 0, 10)
	o := deliverer.Options{Period: 100 * time.Millisecond, AckWait: time.Second}
	run := func(nc *nats.Conn) context.CancelFunc {
		rctx, cancel := context.WithCancel(ctx)
		go deliverer.New(nc, func() bool { return true }, o).Run(rctx)
		return cancel
	}
	stopFirst := run(first)
	defer stopFirst()
	waitFor(t, "the first deliverer's death", 20*time.Second, func() bool { return first.IsClosed() })
	second, err := bus.Connect(f.Configs["a"], "second-deliverer")
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	stopSecond := run(second)
	defer stopSecond()
	waitFor(t, "10 records", 30*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(keys) == 10 })
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	twice := 0
	for k, n := range keys {
		switch {
		case n == 2:
			twice++
		case n != 1:
			t.Errorf("key %s came %d times", k, n)
		}
	}
	if twice != 1 || requests != 11 {
		t.Errorf("%d requests, %d keys twice: want the one record under way when the deliverer died sent again, with its key", requests, twice)
	}
}
