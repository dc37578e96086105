package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// PlacerOptions configure a Placer; zero fields take the defaults.
type PlacerOptions struct {
	// MaxQueue bounds the requests waiting at once (api.MaxQueue).
	MaxQueue int
	// Tick is how often waiting requests are tried again besides when a
	// job ends (250 ms): a worker's load changes on its own.
	Tick time.Duration
	// Logf receives a line per notable event (nil: none).
	Logf func(format string, args ...any)
}

// Placer is the scheduler's placement service: on the leading scheduler
// it places the jobs clients ask for (api.SubjectPlace) on workers with
// lib/placement, and keeps those that find no capacity waiting, first
// in, first out, each until its max wait passes.
type Placer struct {
	nc     *nats.Conn
	leader func() bool
	o      PlacerOptions
	regs   func() []api.Registration

	mu    sync.Mutex
	queue []*waiting
	// inflight counts the starts under way by worker: the workers' own
	// counts do not show them yet.
	inflight map[string]int
	stopped  bool
	// seen are the ids of the requests taken lately (at most maxSeen,
	// the oldest forgotten first, in seenOrder): a client that had no
	// acknowledgement asks again, and the request is taken once.
	seen      map[string]bool
	seenOrder []string

	kick chan struct{}
}

// waiting is a request in the queue.
type waiting struct {
	req      api.PlaceRequest
	reply    string
	deadline time.Time
	// why is the last reason it could not be placed.
	why string
}

// Serve starts the placement service on the scheduler pod p until it
// stops; only while p leads does it answer.
func Serve(p *pod.Pod, o PlacerOptions) (*Placer, error) {
	if o.Logf == nil {
		o.Logf = p.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kv, err := p.JetStream().KeyValue(ctx, api.PodsBucket)
	if err != nil {
		return nil, fmt.Errorf("opening the pod registry: %w", err)
	}
	w, err := registry.Watch(kv, 5*time.Second)
	if err != nil {
		return nil, err
	}
	pl := NewPlacer(p.Conn(), p.Leader, func() []api.Registration { return w.Current(pod.RegistryTTL) }, o)
	stop, err := pl.Start(ctx, p.JetStream())
	if err != nil {
		w.Stop()
		return nil, err
	}
	p.OnStop(func() {
		stop()
		w.Stop()
	})
	return pl, nil
}

// NewPlacer returns a placer over the connection nc of a scheduler that
// leads while leader says so, which learns the live pods from regs.
func NewPlacer(nc *nats.Conn, leader func() bool, regs func() []api.Registration, o PlacerOptions) *Placer {
	if o.MaxQueue <= 0 {
		o.MaxQueue = api.MaxQueue
	}
	if o.Tick <= 0 {
		o.Tick = 250 * time.Millisecond
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return &Placer{nc: nc, leader: leader, regs: regs, o: o, inflight: map[string]int{}, kick: make(chan struct{}, 1)}
}

// Start subscribes the placer's subjects and starts its queue; stop
// ends both and fails the requests still waiting.
func (pl *Placer) Start(ctx context.Context, js jetstream.JetStream) (stop func(), err error) {
	var subs []*nats.Subscription
	unsubscribe := func() {
		for _, s := range subs {
			_ = s.Unsubscribe()
		}
	}
	for subject, h := range map[string]nats.MsgHandler{api.SubjectPlace: pl.handlePlace, api.SubjectPlaceCancel: pl.handleCancel} {
		s, err := pl.nc.Subscribe(subject, h)
		if err != nil {
			unsubscribe()
			return nil, err
		}
		subs = append(subs, s)
	}
	// A job that ends frees capacity: the waiting requests are tried
	// again at once.
	var jw jetstream.KeyWatcher
	if kv, err := store.EnsureKV(ctx, js, jetstream.KeyValueConfig{Bucket: api.JobsBucket, History: 1}); err == nil {
		jw, _ = kv.WatchAll(context.Background(), jetstream.UpdatesOnly())
	}
	done := make(chan struct{})
	if jw != nil {
		go func() {
			for e := range jw.Updates() {
				if e != nil && jobEnded(e.Value()) {
					pl.Kick()
				}
			}
		}()
	}
	go pl.run(done)
	var once sync.Once
	return func() {
		once.Do(func() {
			unsubscribe()
			if jw != nil {
				_ = jw.Stop()
			}
			close(done)
		})
	}, nil
}

// jobEnded reports whether a job record is of a job that ended.
func jobEnded(data []byte) bool {
	var j struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(data, &j) == nil && j.Status != "" && !api.JobActive(j.Status)
}

// Kick has the waiting requests tried again soon.
func (pl *Placer) Kick() {
	select {
	case pl.kick <- struct{}{}:
	default:
	}
}

// Waiting returns how many requests wait in the queue.
func (pl *Placer) Waiting() int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return len(pl.queue)
}

// handlePlace queues a PlaceRequest, if this scheduler leads, and
// acknowledges it at once (Queued); its final reply follows.
func (pl *Placer) handlePlace(m *nats.Msg) {
	if !pl.leader() || m.Reply == "" {
		return
	}
	var req api.PlaceRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pl.send(m.Reply, api.PlaceReply{Error: "bad placement request: " + err.Error()})
		return
	}
	pl.mu.Lock()
	switch {
	case pl.stopped:
		// Not answered: the client asks again, and the scheduler that
		// leads next takes it.
		pl.mu.Unlock()
		return
	case pl.taken(req.ID):
		pl.mu.Unlock()
		return
	case len(pl.queue) >= pl.o.MaxQueue:
		pl.mu.Unlock()
		pl.send(m.Reply, api.PlaceReply{Error: fmt.Sprintf("the scheduler's queue is full: %d jobs already wait for a worker (the limit of a tenant); try again later", pl.o.MaxQueue)})
		return
	}
	pl.queue = append(pl.queue, &waiting{req: req, reply: m.Reply, deadline: time.Now().Add(req.Wait())})
	n := len(pl.queue)
	pl.mu.Unlock()
	pl.send(m.Reply, api.PlaceReply{Queued: true, Position: n})
	pl.Kick()
}

// maxSeen bounds the request ids a placer remembers: far more than a
// client's resends (every second, for PlaceAckTimeout) need at any rate
// a tenant may send, and a fixed amount of memory whatever it sends.
const maxSeen = 4096

// taken reports whether the request id was taken already, and records
// it; pl.mu is held.
func (pl *Placer) taken(id string) bool {
	if id == "" {
		return false
	}
	if pl.seen[id] {
		return true
	}
	if pl.seen == nil {
		pl.seen = make(map[string]bool, maxSeen)
	}
	if len(pl.seenOrder) >= maxSeen {
		delete(pl.seen, pl.seenOrder[0])
		pl.seenOrder = pl.seenOrder[1:]
	}
	pl.seen[id] = true
	pl.seenOrder = append(pl.seenOrder, id)
	return false
}

// handleCancel drops a waiting request whose client stopped waiting.
func (pl *Placer) handleCancel(m *nats.Msg) {
	var c api.PlaceCancel
	if json.Unmarshal(m.Data, &c) != nil || c.ID == "" {
		return
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for i, w := range pl.queue {
		if w.req.ID == c.ID {
			pl.queue = append(pl.queue[:i], pl.queue[i+1:]...)
			return
		}
	}
}

// send publishes a reply to a request's inbox.
func (pl *Placer) send(inbox string, r api.PlaceReply) {
	data, err := json.Marshal(r)
	if err != nil {
		data, _ = json.Marshal(api.PlaceReply{Error: err.Error()})
	}
	_ = pl.nc.Publish(inbox, data)
}
