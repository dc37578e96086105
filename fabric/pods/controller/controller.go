// Package controller is the deployment controller of the scheduler pods:
// on the leading scheduler it keeps each enabled deployment's service
// pipelines running (instances, sites, scaling policy), re-creating the
// jobs that fail, are evicted or lose their worker, with back-off when
// they keep failing; it runs scheduled pipelines and standalone schedules
// on their cron, starts action pipelines on demand, stops the jobs of
// disabled deployments, and writes what it did to the deployment
// activity feed. Its state is in the tenant's KV, so a new leader goes on
// where the last one stopped.
package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/placement"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/fabricops/fabric/fabric/pods/scheduler"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Options configure a controller.
type Options struct {
	// Period is how often it looks (0: api.DefaultControllerPeriod).
	Period time.Duration
	// Now is its clock (nil: time.Now); tests drive it.
	Now func() time.Time
	// Logf receives a line per action (nil: none).
	Logf func(format string, args ...any)
}

// Controller is one scheduler's controller; it acts while its scheduler
// leads.
type Controller struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	leader func() bool
	o      Options

	st     *store.Store
	data   *tenant.Data
	repo   *artifact.Repo
	recs   *jobs.Records
	active *jobs.Active
	kv     jetstream.KeyValue

	mu sync.Mutex // one pass or action at a time
	// Set while leading (nil otherwise): the state as read when the
	// leadership began and written since, and the jobs started since
	// that the active jobs' watch may not show yet.
	states  *states
	pending map[string]api.Job
	// lost are the jobs this leader finished because their worker was
	// gone, which the watch may still show active.
	lost map[string]bool
	// silent are the registered workers that had no responder, since
	// when (see deadAfter).
	silent map[string]time.Time
	// back is when the connection last came back (unix nanoseconds; 0:
	// never lost), see registrySettle.
	back atomic.Int64

	kick chan struct{}
}

// New makes a controller over the tenant of nc; leader tells whether its
// scheduler leads.
func New(ctx context.Context, nc *nats.Conn, leader func() bool, o Options) (*Controller, error) {
	if o.Period <= 0 {
		o.Period = api.DefaultControllerPeriod
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	data := tenant.New(nc)
	st, err := data.Store(ctx)
	if err != nil {
		return nil, err
	}
	kv, err := stateKV(ctx, js)
	if err != nil {
		return nil, err
	}
	recs := jobs.Open(st)
	active, err := recs.WatchActive(ctx)
	if err != nil {
		return nil, err
	}
	return &Controller{nc: nc, js: js, leader: leader, o: o, st: st, data: data, repo: &artifact.Repo{Store: st},
		recs: recs, active: active, kv: kv, kick: make(chan struct{}, 1), pending: map[string]api.Job{}, lost: map[string]bool{}, silent: map[string]time.Time{}}, nil
}

// Run passes every period, and soon after a deployment or schedule
// changes, until stop closes.
func (c *Controller) Run(stop <-chan struct{}) {
	defer c.active.Stop()
	back := c.nc.StatusChanged(nats.CONNECTED)
	defer c.nc.RemoveStatusListener(back)
	go func() {
		for range back {
			c.back.Store(time.Now().UnixNano())
		}
	}()
	for _, k := range []*artifact.Kind{artifact.Deployment, artifact.Schedule} {
		if w := c.watch(k.Bucket, nil); w != nil {
			defer func() { _ = w.Stop() }()
		}
	}
	// A job of a deployment or schedule that ends: its successor need not
	// wait for the period.
	if w := c.watch(api.JobsBucket, ownedJobEnded); w != nil {
		defer func() { _ = w.Stop() }()
	}
	t := time.NewTicker(c.o.Period)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), c.o.Period+30*time.Second)
		if err := c.Pass(ctx); err != nil {
			c.o.Logf("controller: %v", err)
		}
		cancel()
		select {
		case <-stop:
			return
		case <-t.C:
		case <-c.kick:
		}
	}
}

// watch kicks a pass when a record of bucket changes (and when given,
// matters says so).
func (c *Controller) watch(bucket string, matters func([]byte) bool) jetstream.KeyWatcher {
	ctx, cancel := context.WithTimeout(context.Background(), store.Timeout)
	defer cancel()
	kv, err := store.EnsureKV(ctx, c.js, jetstream.KeyValueConfig{Bucket: bucket, History: 1})
	if err != nil {
		return nil
	}
	w, err := kv.WatchAll(context.Background(), jetstream.UpdatesOnly())
	if err != nil {
		return nil
	}
	go func() {
		for e := range w.Updates() {
			if e == nil || matters != nil && !matters(e.Value()) {
				continue
			}
			select {
			case c.kick <- struct{}{}:
			default:
			}
		}
	}()
	return w
}

// ownedJobEnded reports whether a job record is of a job a deployment or
// schedule owns that ended.
func ownedJobEnded(data []byte) bool {
	var j struct {
		Status string        `json:"status"`
		Owner  *api.JobOwner `json:"owner"`
	}
	return json.Unmarshal(data, &j) == nil && j.Owner != nil && j.Status != "" && !api.JobActive(j.Status)
}

// Pass looks at every deployment and schedule once and acts on what it
// finds, if this scheduler leads.
func (c *Controller) Pass(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.leader() {
		c.states = nil
		return nil
	}
	if c.states == nil {
		s, err := loadStates(ctx, c.kv)
		if err != nil {
			return fmt.Errorf("reading the controller's state: %w", err)
		}
		c.states, c.pending, c.lost = s, map[string]api.Job{}, map[string]bool{}
		c.o.Logf("controller: leading (%d deployments and schedules in the state)", len(s.vals))
	}
	p, err := c.newPass(ctx)
	if err != nil {
		return err
	}
	p.deployments()
	p.schedules()
	p.startAll()
	err = p.save()
	if errors.Is(err, errDeposed) {
		c.states = nil
	}
	return err
}

// pass is what one pass knows and does.
type pass struct {
	c      *Controller
	ctx    context.Context
	now    time.Time
	picker *placement.Picker
	// running are the active jobs owned by a deployment or schedule, by
	// job id.
	running map[string]api.Job
	// byService indexes running's service jobs (see services).
	byService map[serviceKey][]api.Job
	versions  map[string][]api.Pipeline
	starts    []*start
	// unsure says a registered worker had no responder this pass but
	// not for deadAfter yet (its connection not back after a server
	// restart): a start that finds no worker waits for the next pass
	// rather than reports a problem or misses a cron.
	unsure bool
	// dirty are the state records to write, by key.
	dirty map[string]any
}

func (c *Controller) newPass(ctx context.Context) (*pass, error) {
	p := &pass{c: c, ctx: ctx, now: c.o.Now().UTC(), running: map[string]api.Job{}, versions: map[string][]api.Pipeline{}, dirty: map[string]any{}}
	workers, dead, unsure, err := c.workers(ctx)
	if err != nil {
		return nil, err
	}
	p.unsure = unsure
	p.picker = placement.NewPicker(scheduler.Workers(workers))
	for _, j := range c.active.Jobs() {
		if j.Owner != nil && !c.lost[j.JobID] {
			p.running[j.JobID] = j
		}
		delete(c.pending, j.JobID)
	}
	// Jobs started lately that the watch does not show yet: read their
	// records (they may have ended already).
	for id, j := range c.pending {
		rec, err := c.recs.Get(ctx, id)
		switch {
		case err != nil:
			p.running[id] = j
		case api.JobActive(rec.Status):
			p.running[id] = rec
		default:
			delete(c.pending, id)
		}
	}
	for id := range c.lost {
		if _, still := p.running[id]; !still {
			delete(c.lost, id)
		}
	}
	// Jobs whose worker is gone are failed now, not when the registry
	// forgets the worker: every worker but the dead counts as live here.
	var running []api.Job
	notDead := map[string]bool{}
	for _, j := range p.running {
		running = append(running, j)
		notDead[j.PodID] = !dead[j.PodID]
	}
	for _, id := range c.recs.FailOrphans(ctx, running, notDead, 0) {
		c.lost[id] = true
		delete(p.running, id)
		delete(c.pending, id)
	}
	return p, nil
}

// deadAfter is how long a registered worker must have had no responder
// before it is dead and its jobs lost: after a server restart, a worker
// whose connection is not back yet has none for a moment, and its jobs
// still run.
const deadAfter = 2 * time.Second

// registrySettle is how long after its connection came back the
// controller takes the registry as still filling: a server that
// restarted lost it (it is in memory), and the pods register again within
// a heartbeat.
const registrySettle = pod.RegistryTTL/3 + time.Second

// workers asks every registered worker for its info: those that answer
// (or are slow to) are live; those with no responder for deadAfter are
// dead. unsure says some have no responder and are not dead yet.
func (c *Controller) workers(ctx context.Context) (infos []api.PodInfo, dead map[string]bool, unsure bool, err error) {
	regs, err := registry.List(ctx, c.js)
	if err != nil {
		return nil, nil, false, err
	}
	var ws []api.Registration
	for _, r := range regs {
		if r.PodType == api.Worker {
			ws = append(ws, r)
		}
	}
	infos, missing, err := registry.Gather[api.PodInfo](ctx, c.nc, ws, api.EndpointInfo)
	if err != nil {
		return nil, nil, false, err
	}
	alive := map[string]bool{}
	for _, i := range infos {
		alive[i.PodID] = true
	}
	for _, id := range missing {
		alive[id] = true
	}
	dead = map[string]bool{}
	now := time.Now()
	silent := map[string]time.Time{}
	for _, r := range ws {
		if alive[r.PodID] {
			continue
		}
		since, ok := c.silent[r.PodID]
		if !ok {
			since = now
		}
		silent[r.PodID] = since
		if now.Sub(since) >= deadAfter {
			dead[r.PodID] = true
		} else {
			unsure = true
		}
	}
	c.silent = silent
	if b := c.back.Load(); b != 0 && time.Since(time.Unix(0, b)) < registrySettle {
		unsure = true
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].PodID < infos[j].PodID })
	return infos, dead, unsure, nil
}

// pipeline resolves the version of a pipeline an entry runs (read once
// per pass).
func (p *pass) pipeline(e blueprint.Entry) (api.Pipeline, error) {
	vs, ok := p.versions[e.Name]
	if !ok {
		var err error
		vs, err = p.c.data.PipelineVersions(p.ctx, e.Name)
		if err != nil && !errors.Is(err, tenant.ErrNoPipeline) {
			return api.Pipeline{}, err
		}
		p.versions[e.Name] = vs
	}
	pl, ok, why := blueprint.Resolve(vs, e)
	if !ok {
		return pl, errors.New(why)
	}
	return pl, nil
}

// save writes the state records the pass changed.
func (p *pass) save() error {
	keys := make([]string, 0, len(p.dirty))
	for k := range p.dirty {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var err error
		if v := p.dirty[k]; v == nil {
			err = p.c.states.drop(p.ctx, k)
		} else {
			err = p.c.states.put(p.ctx, k, v)
		}
		if err != nil {
			return fmt.Errorf("writing the controller's state %s: %w", k, err)
		}
	}
	return nil
}

// activity writes an entry of the deployment activity feed.
func (c *Controller) activity(ctx context.Context, a api.Activity) {
	a.Timestamp = api.Timestamp(c.o.Now())
	c.o.Logf("controller: %s %s", a.Severity, a.Message)
	data, err := json.Marshal(a)
	if err != nil {
		return
	}
	// One attempt, bounded: an entry asked twice would show twice, and a
	// publish lost to a server restarting must not hold the pass up.
	ctx, cancel := context.WithTimeout(ctx, store.AttemptTimeout)
	defer cancel()
	if _, err := c.js.Publish(ctx, streams.Subject(api.StreamDeploymentUpdates), data); err != nil {
		c.o.Logf("controller: writing the activity feed: %v", err)
	}
}

// evict stops a job on its worker.
func (c *Controller) evict(ctx context.Context, j api.Job, reason string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.recs.Evict(ctx, c.nc, j, reason)
}

// request sends v to subject and decodes the answer into out.
func (c *Controller) request(ctx context.Context, subject string, v, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	m, err := c.nc.RequestWithContext(rctx, subject, data)
	if err != nil {
		return err
	}
	return json.Unmarshal(m.Data, out)
}
