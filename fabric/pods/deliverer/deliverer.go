// Package deliverer delivers the tenant's subscriptions: run by every
// scheduler pod and acting only while it leads, it keeps one delivery
// loop per enabled subscription, each reading the subscription's stream
// through a durable JetStream consumer of its own (package subscription
// names it) and acknowledging a record only once its target has it, so
// that a restart or a new leader goes on where the last one stopped,
// neither losing nor repeating records. A stream target is written with
// a message id JetStream drops a second copy of; a webhook delivery
// carries an idempotency key for the receiver to do the same (a leader
// that dies between the receiver's answer and its acknowledgement
// delivers that record again).
package deliverer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/subscription"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Options bound the deliveries; zero fields take Defaults'.
type Options struct {
	// Period is how often the subscriptions are read again (besides when
	// one changes).
	Period time.Duration
	// Timeout bounds one webhook request, from dialing to the end of the
	// response's first 4 KB (the rest is never read).
	Timeout time.Duration
	// FirstBackoff is the wait after a first failure, doubled after each
	// next one up to MaxBackoff; a record still failing MaxRetryTime
	// after its first try is given up (counted failed).
	FirstBackoff, MaxBackoff, MaxRetryTime time.Duration
	// MaxInFlight bounds the deliveries under way at once, over all the
	// tenant's subscriptions.
	MaxInFlight int
	// MaxActive bounds the subscriptions delivering at once; those past
	// it (by name) wait, and say so in their state.
	MaxActive int
	// MaxBody bounds a record delivered; a larger one is given up.
	MaxBody int
	// AckWait is how long JetStream waits for a record's acknowledgement
	// before it hands the record out again (a delivery under way tells it
	// to wait on every AckWait/3).
	AckWait time.Duration
	// Logf receives a line per notable event (nil: none).
	Logf func(format string, args ...any)
}

// Defaults are the options' defaults.
var Defaults = Options{
	Period:       2 * time.Second,
	Timeout:      10 * time.Second,
	FirstBackoff: 500 * time.Millisecond,
	MaxBackoff:   30 * time.Second,
	MaxRetryTime: 5 * time.Minute,
	MaxInFlight:  16,
	MaxActive:    200,
	MaxBody:      1 << 20,
	AckWait:      15 * time.Second,
}

func (o Options) withDefaults() Options {
	d := Defaults
	set := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&o.Period, d.Period)
	set(&o.Timeout, d.Timeout)
	set(&o.FirstBackoff, d.FirstBackoff)
	set(&o.MaxBackoff, d.MaxBackoff)
	set(&o.MaxRetryTime, d.MaxRetryTime)
	set(&o.AckWait, d.AckWait)
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = d.MaxInFlight
	}
	if o.MaxActive <= 0 {
		o.MaxActive = d.MaxActive
	}
	if o.MaxBody <= 0 {
		o.MaxBody = d.MaxBody
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// Rows are the bounds as the limits command lists them.
func (o Options) Rows() []api.LimitRow {
	const fixed = "fixed"
	sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }
	return []api.LimitRow{
		{Scope: "subscription", Limit: "request_timeout_seconds", Value: sec(o.Timeout), SetBy: fixed + "; the first 4 KB of an answer are read, no more"},
		{Scope: "subscription", Limit: "retry_seconds", Value: sec(o.MaxRetryTime), SetBy: fixed + "; then the record is given up (failed)"},
		{Scope: "subscription", Limit: "max_backoff_seconds", Value: sec(o.MaxBackoff), SetBy: fixed},
		{Scope: "subscription", Limit: "max_record_kb", Value: strconv.Itoa(o.MaxBody >> 10), SetBy: fixed + "; a larger record is given up"},
		{Scope: "subscription", Limit: "deliveries_in_flight", Value: strconv.Itoa(o.MaxInFlight), SetBy: fixed + " (all the tenant's subscriptions)"},
		{Scope: "subscription", Limit: "delivering", Value: strconv.Itoa(o.MaxActive), SetBy: fixed + "; the others wait"},
	}
}

// Run starts the deliverer of scheduler pod p until p stops.
func Run(p *pod.Pod, o Options) {
	if o.Logf == nil {
		o.Logf = func(f string, a ...any) { p.Warnf(api.LoggerController, f, a...) }
	}
	d := New(p.Conn(), p.Leader, o)
	p.SetLimits(d.o.Rows())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	// A stopping pod waits for its loops: each finishes the delivery
	// under way and acknowledges it before the connection goes.
	p.OnStop(func() { cancel(); <-done })
	go func() { defer close(done); d.Run(ctx) }()
}

// Deliverer keeps the delivery loops of one tenant's subscriptions.
type Deliverer struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	leader func() bool
	o      Options
	slots  chan struct{} // MaxInFlight

	loops map[string]*loop // by subscription name
	kick  chan struct{}
}

// New makes a deliverer over the tenant of nc; leader tells whether it
// may deliver.
func New(nc *nats.Conn, leader func() bool, o Options) *Deliverer {
	o = o.withDefaults()
	js, _ := jetstream.New(nc)
	return &Deliverer{nc: nc, js: js, leader: leader, o: o, slots: make(chan struct{}, o.MaxInFlight),
		loops: map[string]*loop{}, kick: make(chan struct{}, 1)}
}

// Run reconciles the loops with the subscriptions every period, and soon
// after one changes, until ctx ends; then it stops them.
func (d *Deliverer) Run(ctx context.Context) {
	defer d.stopAll()
	var w jetstream.KeyWatcher
	defer func() {
		if w != nil {
			_ = w.Stop()
		}
	}()
	t := time.NewTicker(d.o.Period)
	defer t.Stop()
	for {
		if w == nil && d.leader() {
			w = d.watch(ctx)
		}
		if err := d.pass(ctx); err != nil && ctx.Err() == nil {
			d.o.Logf("subscriptions: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.kick:
		}
	}
}

// watch kicks a pass when a subscription changes.
func (d *Deliverer) watch(ctx context.Context) jetstream.KeyWatcher {
	wctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	kv, err := d.js.KeyValue(wctx, artifact.Subscription.Bucket)
	if err != nil {
		return nil // none yet: looked for again on the next pass
	}
	w, err := kv.WatchAll(ctx, jetstream.UpdatesOnly())
	if err != nil {
		return nil
	}
	go func() {
		for range w.Updates() {
			select {
			case d.kick <- struct{}{}:
			default:
			}
		}
	}()
	return w
}

// spec is a subscription as a loop delivers it.
type spec struct {
	Name    string
	Stream  string
	Filter  string
	Target  subscription.Target
	Enabled bool
	// Since is when it was last saved: a consumer made for it (there is
	// none yet when it is new) starts there.
	Since time.Time
	// version changes whenever the document does.
	version string
}

func parseSpec(r artifact.Record) (spec, error) {
	var s struct {
		Name      string              `json:"name"`
		Stream    string              `json:"stream"`
		Filter    string              `json:"filter"`
		Enabled   *bool               `json:"enabled"`
		Target    subscription.Target `json:"target"`
		SavedTime string              `json:"saved_time"`
	}
	raw := r.Doc.JSON()
	if err := json.Unmarshal(raw, &s); err != nil {
		return spec{}, err
	}
	since, _ := time.Parse(api.TimeFormat, s.SavedTime)
	return spec{Name: s.Name, Stream: s.Stream, Filter: s.Filter, Target: s.Target, Enabled: s.Enabled == nil || *s.Enabled,
		Since: since, version: string(raw)}, nil
}

// pass starts, restarts and stops the loops as the subscriptions say
// (all of them stopped unless leading), and forgets the deleted ones.
func (d *Deliverer) pass(ctx context.Context) error {
	if !d.leader() {
		d.stopAll()
		return nil
	}
	// A tenant without subscriptions has no bucket of them: it is not
	// made here (it would count among the tenant's streams).
	lctx, cancel := context.WithTimeout(ctx, store.Timeout)
	_, err := d.js.KeyValue(lctx, artifact.Subscription.Bucket)
	cancel()
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	st, err := tenant.New(d.nc).Store(ctx)
	if err != nil {
		return err
	}
	recs, err := (&artifact.Repo{Store: st}).List(ctx, artifact.Subscription)
	if err != nil {
		return err
	}
	specs := map[string]spec{}
	var names []string
	for _, r := range recs {
		s, err := parseSpec(r)
		if err != nil || s.Name == "" {
			continue
		}
		specs[s.Name] = s
		names = append(names, s.Name)
	}
	sort.Strings(names)
	// Loops of subscriptions deleted, disabled or changed stop; a deleted
	// one's consumer and state go.
	for name, l := range d.loops {
		s, ok := specs[name]
		if ok && s.Enabled && s.version == l.spec.version {
			continue
		}
		l.stop()
		delete(d.loops, name)
		if !ok || s.Stream != l.spec.Stream {
			if err := subscription.Forget(ctx, d.js, name, l.spec.Stream); err != nil {
				d.o.Logf("subscription %s: forgetting its delivery state: %v", name, err)
			}
		}
	}
	d.forgetDeleted(ctx, specs)
	active := 0
	for _, name := range names {
		s := specs[name]
		if !s.Enabled {
			continue
		}
		active++
		if d.loops[name] != nil {
			continue
		}
		if active > d.o.MaxActive {
			d.refuse(ctx, s, fmt.Sprintf("over the limit of %d subscriptions delivering at once: waiting for another to be disabled or deleted", d.o.MaxActive))
			continue
		}
		l := d.start(s)
		d.loops[name] = l
	}
	return nil
}

// forgetDeleted deletes the consumers and states of the subscriptions
// deleted while no leader ran (their loops were not running here).
func (d *Deliverer) forgetDeleted(ctx context.Context, specs map[string]spec) {
	kctx, cancel := context.WithTimeout(ctx, store.Timeout)
	defer cancel()
	kv, err := d.js.KeyValue(kctx, subscription.StateBucket)
	if err != nil {
		return // none: nothing was delivered
	}
	entries, err := store.Entries(kctx, kv)
	if err != nil {
		return
	}
	keys := map[string]bool{}
	for name := range specs {
		keys[store.Key(name)] = true
	}
	for _, e := range entries {
		if keys[e.Key()] {
			continue
		}
		var s subscription.State
		_ = json.Unmarshal(e.Value(), &s)
		if s.Stream != "" {
			_ = d.js.DeleteConsumer(kctx, streams.JetStreamName(s.Stream), subscription.ConsumerOfKey(e.Key()))
		}
		_ = kv.Delete(kctx, e.Key())
	}
}

// refuse records why a subscription does not deliver.
func (d *Deliverer) refuse(ctx context.Context, s spec, why string) {
	st, err := subscription.Load(ctx, d.js, s.Name)
	if err != nil || st.LastError == why {
		return
	}
	st.Status, st.LastError, st.LastErrorTime, st.Stream = subscription.StatusWaiting, why, subscription.Stamp(time.Now()), s.Stream
	_ = subscription.Save(ctx, d.js, s.Name, st)
}

func (d *Deliverer) stopAll() {
	var wg sync.WaitGroup
	for name, l := range d.loops {
		wg.Add(1)
		go func() { defer wg.Done(); l.stop() }()
		delete(d.loops, name)
	}
	wg.Wait()
}
