// Package worker is the worker pod's service: it runs pipelines as jobs
// through the engine, keeps their records (fabric/jobs) and outputs,
// stops them when evicted, and publishes each step's trace.
//
// A job record is written before the start response is sent, moves to
// Running, and ends Completed (with its output in the object store),
// Failed (with the reason) or Evicted. A worker restarted in place fails
// the jobs it had left running; the api-server fails those of a worker
// that died.
package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/fabricops/fabric/fabric/lib/budget"
	"io"
	"io/fs"
	"log"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/libraries"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/engine"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
)

// stopGrace is how long a stopping worker waits for its jobs to notice.
const stopGrace = 3 * time.Second

// Worker runs jobs on a worker pod.
type Worker struct {
	p     *pod.Pod
	recs  *jobs.Records
	store *Store
	host  string
	// limits are the jobs' defaults, maxLimits the most a pipeline may ask.
	limits, maxLimits api.JobLimits
	// pool is the memory all the worker's jobs hold at once.
	pool *budget.Pool
	// packages are the tenant's bot packages loaded so far.
	packages packageCache

	// mu guards running and stopping, and orders each job's wg.Add
	// before the stop's wg.Wait: a job is counted under mu, and only
	// while the worker is not stopping.
	mu       sync.Mutex
	running  map[string]context.CancelCauseFunc
	services map[string]bool // the running jobs that are service instances
	stopping bool
	wg       sync.WaitGroup
}

// stopCause is why a running job was stopped.
type stopCause struct {
	status, reason string
}

func (s stopCause) Error() string { return s.reason }

// Options configures a worker.
type Options struct {
	// Limits are the jobs' limits unless a pipeline asks for others, and
	// MaxLimits the most it may ask (zero fields: api.DefaultJobLimits,
	// api.MaxJobLimits).
	Limits, MaxLimits api.JobLimits
	// DataDir is the tenant's directory of files that @files:loadfile
	// reads (relative paths only, nothing outside it); empty: no files.
	DataDir string
	// MemoryMB bounds the tables all the worker's jobs hold at once (0:
	// DefaultMemoryMB): jobs that each keep within their own limit cannot
	// together take the host. A pipeline may not ask for more than it.
	MemoryMB float64
}

// DefaultMemoryMB is what all of a worker's jobs may hold at once unless
// its options say otherwise: two jobs at their default limit.
const DefaultMemoryMB = 2 * 2048

func (o Options) limits() (def, max api.JobLimits) {
	def, _ = o.Limits.Within(api.DefaultJobLimits, api.JobLimits{})
	max, _ = o.MaxLimits.Within(api.MaxJobLimits, api.JobLimits{})
	return def, max
}

// Serve adds the worker's endpoints to the pod p until it stops.
func Serve(p *pod.Pod, o Options) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	data := tenant.New(p.Conn())
	s, err := data.Store(ctx)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	w := &Worker{p: p, recs: jobs.Open(s), store: NewStore(data, o.DataDir), host: host, running: map[string]context.CancelCauseFunc{}, services: map[string]bool{}}
	// The libraries bots may load are those the pod installed when it
	// started: a library staged since waits for the next start.
	w.packages.libs = map[string]fs.FS{}
	if p.PackageDir != "" {
		libs, refused, err := libraries.Installed(p.PackageDir)
		if err != nil {
			p.Logf("reading the installed libraries: %v (bots load none)", err)
		} else if libs != nil {
			w.packages.libs = libs
		}
		p.KeepInstalled(w.packages.libs)
		// A library over the bounds of what a pod loads is left out, a
		// line each; bots load the others.
		for _, r := range refused {
			p.Logf("libraries: %v", r)
		}
	}
	w.limits, w.maxLimits = o.limits()
	memory := o.MemoryMB
	if memory <= 0 {
		memory = DefaultMemoryMB
	}
	w.maxLimits.MaxMemoryMB = min(w.maxLimits.MaxMemoryMB, memory)
	w.limits.MaxMemoryMB = min(w.limits.MaxMemoryMB, memory)
	w.pool = budget.NewPool("the worker's jobs", int64(memory*(1<<20)))
	p.SetLimits(append(w.limits.Rows(w.maxLimits, "a pipeline's limits: section, up to the maximum; fabricd settings: limits.job, limits.job_max"),
		api.LimitRow{Scope: "worker", Limit: "memory_mb", Value: strconv.FormatFloat(memory, 'f', -1, 64), SetBy: "fabricd settings: limits.worker_memory_mb (all its jobs together)"}))
	// The bots of bot packages run here, in this Starlark dialect:
	// bot-package list-runtimes shows it for each worker.
	p.SetRuntimes(map[string]string{api.RuntimeStarlark: botpkg.DialectVersion})
	if err := w.failLeftovers(ctx); err != nil {
		return err
	}
	nc := p.Conn()
	var subs []*nats.Subscription
	for endpoint, h := range map[string]nats.MsgHandler{
		api.EndpointRun:    w.handleRun,
		api.EndpointEvict:  w.handleEvict,
		api.EndpointVerify: w.handleVerify,
	} {
		sub, err := nc.Subscribe(api.PodSubject(p.ID, endpoint), h)
		if err != nil {
			for _, s := range subs {
				_ = s.Unsubscribe()
			}
			return err
		}
		subs = append(subs, sub)
	}
	p.OnStop(func() {
		for _, s := range subs {
			_ = s.Unsubscribe()
		}
		w.stopAll()
	})
	p.OnMaintenance(w.maintenance)
	go w.reportResources()
	go w.runSynthetics(s)
	return nil
}

// maintenance hands the worker's service instances back to the
// controller when the pod goes into maintenance mode: they are evicted
// (their deployment's controller starts them again on another worker);
// the other jobs finish.
func (w *Worker) maintenance(on bool) {
	if !on {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for id := range w.services {
		if cancel, ok := w.running[id]; ok {
			cancel(stopCause{api.JobEvicted, fmt.Sprintf("worker %s went into maintenance: the service instance starts again on another worker", w.p.ID)})
		}
	}
}

// failLeftovers fails the jobs this pod left active: it was restarted
// while they ran.
func (w *Worker) failLeftovers(ctx context.Context) error {
	all, err := w.recs.List(ctx)
	if err != nil {
		return err
	}
	for _, j := range all {
		if j.PodID == w.p.ID && api.JobActive(j.Status) {
			_, _ = w.recs.Finish(ctx, j.JobID, api.JobFailed, "the worker restarted while the job was "+strings.ToLower(j.Status), nil)
		}
	}
	return nil
}

// stopAll stops the running jobs (Failed: the worker stopped) and waits a
// little for them to record it.
func (w *Worker) stopAll() {
	w.mu.Lock()
	w.stopping = true
	for _, cancel := range w.running {
		cancel(stopCause{api.JobFailed, "the worker stopped while the job was running"})
	}
	w.mu.Unlock()
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopGrace):
	}
}

func (w *Worker) handleRun(m *nats.Msg) {
	var req api.RunRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pod.Reply(m, failed(fmt.Sprintf("bad run request: %v", err)))
		return
	}
	if w.p.InMaintenance() {
		r := failed(fmt.Sprintf("worker %s is in maintenance: it takes no new jobs", w.p.ID))
		r.Maintenance = true
		pod.Reply(m, r)
		return
	}
	steps := engineSteps(req.Steps)
	if len(steps) == 0 {
		pod.Reply(m, failed("the pipeline has no steps"))
		return
	}
	job := api.Job{JobID: jobs.NewID(), PodID: w.p.ID, Host: w.host, PID: os.Getpid(), Site: w.p.Site,
		Pipeline: req.Pipeline, Version: req.Version, Status: api.JobInitializing, Steps: len(steps), Owner: req.Owner}
	var asked api.JobLimits
	if req.Limits != nil {
		asked = *req.Limits
	}
	limits, err := asked.Within(w.limits, w.maxLimits)
	if err != nil {
		pod.Reply(m, failed(err.Error()))
		return
	}
	// Verified here, so that the start response tells a wrong pipeline,
	// and run by the job without verifying it again.
	eng := w.engine(job)
	eng.Limits = engine.Limits{MaxRows: limits.MaxRows, MaxMemoryMB: limits.MaxMemoryMB}
	pctx, pcancel := context.WithTimeout(context.Background(), 10*time.Second)
	pkgBots, err := packageBots(pctx, w.store.c.Data, &w.packages, namespaces(steps), req.Sources, limits.MaxMemoryMB)
	pcancel()
	if err != nil {
		pod.Reply(m, failed("cannot read the bot packages: "+err.Error()))
		return
	}
	eng.Extensions = append(eng.Extensions, pkgBots...)
	runSteps, err := eng.Prepare(steps)
	if err != nil {
		pod.Reply(m, failed(err.Error()))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.create(ctx, job); err != nil {
		pod.Reply(m, failed("cannot record the job: "+err.Error()))
		return
	}
	jctx, jcancel := context.WithCancelCause(context.Background())
	limit := time.Duration(limits.MaxSeconds * float64(time.Second))
	tctx, tcancel := context.WithTimeoutCause(jctx, limit, stopCause{api.JobFailed, fmt.Sprintf("the job ran longer than its time limit of %s", limit)})
	// Counted under mu, or not at all once the worker stops: a job the
	// stop did not see would be neither stopped nor waited for (and its
	// wg.Add, unordered with the stop's wg.Wait, was a data race).
	w.mu.Lock()
	if w.stopping {
		w.mu.Unlock()
		tcancel()
		jcancel(nil)
		const why = "the worker stopped before the job started"
		_, _ = w.recs.Finish(ctx, job.JobID, api.JobFailed, why, nil)
		pod.Reply(m, failed(why))
		return
	}
	w.running[job.JobID] = jcancel
	if req.Owner != nil && req.Owner.Kind == api.OwnerService {
		w.services[job.JobID] = true
	}
	w.wg.Add(1)
	w.mu.Unlock()
	w.p.JobStarted()
	w.p.Debugf(api.LoggerJobs, "jobs: job %s (%s version %q) started: %d steps, limits rows %d, memory %g MB, %s; site %s", job.JobID, job.Pipeline, job.Version,
		job.Steps, limits.MaxRows, limits.MaxMemoryMB, limit, job.Site)
	go func() {
		defer tcancel()
		w.run(tctx, job, runSteps)
	}()
	pod.Reply(m, api.StartResponse{Status: "started", Results: []any{}, Now: api.Timestamp(time.Now()),
		StatusSubject: api.TraceSubject(w.p.ID, job.JobID), JobID: job.JobID})
}

func failed(reason string) api.StartResponse {
	return api.StartResponse{Status: "failed", Reason: reason, Results: []any{}, Now: api.Timestamp(time.Now())}
}

// engine returns the engine of a job: it publishes each step's trace on
// the job's trace subject.
func (w *Worker) engine(job api.Job) *engine.Engine {
	nc := w.p.Conn()
	subject := api.TraceSubject(w.p.ID, job.JobID)
	return &engine.Engine{Store: w.store, JobID: job.JobID, Extensions: w.extensions(), Pool: w.pool, Trace: func(t engine.Trace) {
		data, _ := json.Marshal(api.Trace{JobID: job.JobID, PodID: w.p.ID, Pipeline: job.Pipeline,
			Time: api.Timestamp(t.Time), Block: t.Block, Step: t.Step, Tag: t.Tag, Status: t.Status,
			Rows: t.Rows, Columns: t.Columns, DurationMS: float64(t.Duration.Microseconds()) / 1000, Message: t.Message})
		_ = nc.Publish(subject, data)
	}}
}

// extensions are the bots the worker adds to the engine's: of streams,
// log archives and sources.
func (w *Worker) extensions() []engine.Extension {
	js := w.p.JetStream()
	var xs []engine.Extension
	all := func() []engine.BotDoc {
		docs := engine.Bots()
		for _, x := range xs {
			docs = append(docs, x.Doc)
		}
		return docs
	}
	xs = append(streamBots(js), archiveBots(w.store.c.Data, js)...)
	xs = append(xs, sourceBots(w.store.c.Data, js, w.store.dataDir, &w.packages, all)...)
	return xs
}

// run runs a job to its end (runSteps, from Engine.Prepare) and records
// how it ended.
func (w *Worker) run(ctx context.Context, job api.Job, runSteps func(context.Context) (*frame.Frame, error)) {
	defer w.wg.Done()
	defer w.p.JobEnded()
	defer func() {
		w.mu.Lock()
		delete(w.running, job.JobID)
		delete(w.services, job.JobID)
		w.mu.Unlock()
	}()
	rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = w.recs.Update(rctx, job.JobID, func(j *api.Job) error {
		if j.Status != api.JobInitializing {
			return jobs.ErrUnchanged
		}
		j.Status = api.JobRunning
		return nil
	})
	started := time.Now()
	out, err := runSteps(ctx)
	status, reason, rows := api.JobCompleted, "", int64(0)
	defer func() { w.jobEnded(job, status, reason, rows, time.Since(started)) }()
	// Recording the end is tried again until it holds (Finish changes a
	// job that ended already not at all), so that a server of a cluster
	// that dies meanwhile leaves no job Running.
	finish := func(status, reason string, set func(*api.Job)) error {
		fctx, fcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer fcancel()
		return retry(fctx, func() error {
			_, err := w.recs.Finish(fctx, job.JobID, status, reason, set)
			return err
		})
	}
	if errors.Is(err, engine.ErrLimit) {
		// What the job gathered up to its limit is garbage now: give it
		// back to the host at once rather than at the collector's pace,
		// so that the worker's resident memory returns for the next job.
		out = nil
		defer debug.FreeOSMemory()
	}
	var cause stopCause
	switch {
	case errors.As(context.Cause(ctx), &cause):
		status, reason = cause.status, cause.reason
		err = finish(status, reason, nil)
	case err != nil:
		status, reason = api.JobFailed, err.Error()
		err = finish(status, reason, nil)
	default:
		path := jobs.OutputPath(job.JobID)
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		small, serr := w.saveOutput(sctx, path, out)
		scancel()
		if serr != nil {
			status, reason = api.JobFailed, "cannot store the output: "+serr.Error()
			err = finish(status, reason, nil)
			break
		}
		if out != nil {
			rows = int64(out.NumRows())
		}
		err = finish(api.JobCompleted, "", func(j *api.Job) {
			j.Output, j.OutputRows, j.SmallOutput = path, rows, small
		})
	}
	if err != nil {
		log.Printf("worker %s: recording the end of job %s: %v", w.p.ID, job.JobID, err)
	}
}

// saveOutput stores a job's final frame as Parquet, and returns the copy
// its record keeps when it is small (api.SmallOutput: a small frame is
// encoded once, in memory, and read back). A server of a cluster that
// dies mid-put loses the put's acknowledgements, so a failed put is tried
// again (the frame is still in memory) until ctx ends.
func (w *Worker) saveOutput(ctx context.Context, path string, f *frame.Frame) (*api.SmallOutput, error) {
	if f == nil {
		f, _ = frame.FromRows(nil, nil)
	}
	if f.NumRows() <= api.SmallOutputRows {
		var pq bytes.Buffer
		if err := f.WriteTo(&pq, frame.Parquet, ""); err != nil {
			return nil, err
		}
		err := retry(ctx, func() error {
			_, err := w.recs.Store().PutBlob(ctx, path, bytes.NewReader(pq.Bytes()))
			return err
		})
		if err != nil {
			return nil, err
		}
		return smallOutput(pq.Bytes(), path), nil
	}
	return nil, retry(ctx, func() error {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(f.WriteTo(pw, frame.Parquet, "")) }()
		_, err := w.recs.Store().PutBlob(ctx, path, pr)
		pr.CloseWithError(err)
		return err
	})
}

// create records a new job, trying again while the store does not answer
// (a server of a cluster that dies takes its streams' leadership with it
// for a moment). A try that was stored but not acknowledged makes the
// next one find the record: that is success.
func (w *Worker) create(ctx context.Context, job api.Job) error {
	// Within the client's wait for the start response.
	ctx, cancel := context.WithTimeout(ctx, 6*time.Second)
	defer cancel()
	tried := false
	return retry(ctx, func() error {
		err := w.recs.Create(ctx, job)
		if tried && errors.Is(err, store.ErrExists) {
			return nil
		}
		tried = true
		return err
	})
}

// retry calls fn until it succeeds, pausing a little longer each time,
// and returns its last error once ctx ends.
func retry(ctx context.Context, fn func() error) error {
	pause := 100 * time.Millisecond
	for {
		err := fn()
		if err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

func (w *Worker) handleEvict(m *nats.Msg) {
	var req api.EvictRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pod.Reply(m, api.Error{Error: fmt.Sprintf("bad evict request: %v", err)})
		return
	}
	reason := req.Reason
	if reason == "" {
		reason = "evicted"
	}
	w.mu.Lock()
	cancel, ok := w.running[req.JobID]
	w.mu.Unlock()
	ctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	if ok {
		cancel(stopCause{api.JobEvicted, reason})
		// Wait (briefly) until the job has recorded its eviction.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			j, err := w.recs.Get(ctx, req.JobID)
			if err != nil || !api.JobActive(j.Status) {
				pod.Reply(m, j)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	j, err := w.recs.Finish(ctx, req.JobID, api.JobEvicted, reason, nil)
	if err != nil {
		pod.Reply(m, api.Error{Error: err.Error()})
		return
	}
	pod.Reply(m, j)
}

func (w *Worker) handleVerify(m *nats.Msg) {
	var req api.RunRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pod.Reply(m, api.VerifyResponse{Error: fmt.Sprintf("bad verify request: %v", err)})
		return
	}
	steps := engineSteps(req.Steps)
	if len(steps) == 0 {
		pod.Reply(m, api.VerifyResponse{Error: "the pipeline has no steps"})
		return
	}
	pctx, pcancel := context.WithTimeout(context.Background(), 10*time.Second)
	pkgBots, err := packageBots(pctx, w.store.c.Data, &w.packages, namespaces(steps), req.Sources, 0)
	pcancel()
	if err != nil {
		pod.Reply(m, api.VerifyResponse{Error: "cannot read the bot packages: " + err.Error(), Steps: len(steps)})
		return
	}
	if err := (&engine.Engine{Store: w.store, Extensions: pkgBots}).Verify(steps); err != nil {
		pod.Reply(m, api.VerifyResponse{Error: err.Error(), Steps: len(steps)})
		return
	}
	pod.Reply(m, api.VerifyResponse{OK: true, Steps: len(steps)})
}

func engineSteps(in []api.PipelineStep) []engine.Step {
	out := make([]engine.Step, len(in))
	for i, s := range in {
		out[i] = engine.Step{Tag: s.Tag, Query: s.Query, Comment: s.Comment}
	}
	return out
}
