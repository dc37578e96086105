package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/lib/placement"
	"github.com/nats-io/nats.go"
)

// Bounds of the placer's own waits.
const (
	// viewTimeout bounds the asking of the workers for their load.
	viewTimeout = 2 * time.Second
	// startTimeout bounds a worker's answer to a start.
	startTimeout = 10 * time.Second
)

// run tries the waiting requests when kicked (a request came, a job
// ended, a start finished) and on every tick, until done closes; then it
// fails those still waiting.
func (pl *Placer) run(done <-chan struct{}) {
	t := time.NewTicker(pl.o.Tick)
	defer t.Stop()
	for {
		select {
		case <-done:
			pl.mu.Lock()
			pl.stopped = true
			q := pl.queue
			pl.queue = nil
			pl.mu.Unlock()
			for _, w := range q {
				pl.send(w.reply, api.PlaceReply{Error: "the scheduler stopped before a worker took the job: try again"})
			}
			return
		case <-pl.kick:
		case <-t.C:
		}
		pl.dispatch()
	}
}

// dispatch fails the requests whose max wait passed, then places the
// others in their order, from one view of the workers' load; those that
// find no capacity wait on.
func (pl *Placer) dispatch() {
	now := time.Now()
	pl.mu.Lock()
	var expired []*waiting
	live := pl.queue[:0]
	for _, w := range pl.queue {
		if now.After(w.deadline) {
			expired = append(expired, w)
		} else {
			live = append(live, w)
		}
	}
	pl.queue = live
	empty := len(pl.queue) == 0
	pl.mu.Unlock()
	for _, w := range expired {
		pl.send(w.reply, api.PlaceReply{Error: expiredError(w)})
	}
	if empty {
		return
	}
	picker := placement.NewPicker(pl.view())
	pl.mu.Lock()
	defer pl.mu.Unlock()
	kept := pl.queue[:0]
	for _, w := range pl.queue {
		wk, err := picker.Pick(Placement(w.req.Placement))
		switch {
		case errors.Is(err, placement.ErrNoCapacity):
			w.why = err.Error()
			kept = append(kept, w)
		case err != nil:
			pl.send(w.reply, api.PlaceReply{Error: err.Error()})
		default:
			pl.inflight[wk.ID]++
			go pl.start(w, wk.ID)
		}
	}
	pl.queue = kept
}

// expiredError says that a request's max wait passed, and why the
// workers could not take it.
func expiredError(w *waiting) string {
	msg := fmt.Sprintf("no worker had capacity for the job within %s s (its max wait)", strconv.FormatFloat(w.req.Wait().Seconds(), 'f', -1, 64))
	if w.why != "" {
		msg += ": " + w.why
	}
	return msg
}

// view asks the live workers for their info and returns them as
// placement sees them, with the starts under way counted.
func (pl *Placer) view() []placement.Worker {
	var regs []api.Registration
	for _, r := range pl.regs() {
		if r.PodType == api.Worker {
			regs = append(regs, r)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), viewTimeout)
	defer cancel()
	infos, _, _ := registry.Gather[api.PodInfo](ctx, pl.nc, regs, api.EndpointInfo)
	ws := Workers(infos)
	pl.mu.Lock()
	for i := range ws {
		ws[i].ActiveJobs += pl.inflight[ws[i].ID]
	}
	pl.mu.Unlock()
	return ws
}

// start sends a placed request to its worker and replies the worker's
// answer.
func (pl *Placer) start(w *waiting, podID string) {
	defer func() {
		pl.mu.Lock()
		if pl.inflight[podID]--; pl.inflight[podID] <= 0 {
			delete(pl.inflight, podID)
		}
		pl.mu.Unlock()
		pl.Kick()
	}()
	endpoint, what := api.EndpointRun, "starting the job"
	if w.req.Verify {
		endpoint, what = api.EndpointVerify, "verifying the pipeline"
	}
	data, err := json.Marshal(w.req.Run)
	if err != nil {
		pl.send(w.reply, api.PlaceReply{Error: err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	m, err := pl.nc.RequestWithContext(ctx, api.PodSubject(podID, endpoint), data)
	switch {
	case errors.Is(err, nats.ErrNoResponders) && pl.requeue(w):
		return // the worker went away before it took the job (an upgrade replaces it): another will
	case errors.Is(err, nats.ErrNoResponders):
		pl.send(w.reply, api.PlaceReply{PodID: podID, Error: fmt.Sprintf("%s on worker %s: the worker is gone", what, podID)})
		return
	case errors.Is(err, context.DeadlineExceeded):
		pl.send(w.reply, api.PlaceReply{PodID: podID, Error: fmt.Sprintf("timed out after %s %s on worker %s", startTimeout, what, podID)})
		return
	case err != nil:
		pl.send(w.reply, api.PlaceReply{PodID: podID, Error: fmt.Sprintf("%s on worker %s: %v", what, podID, err)})
		return
	}
	r := api.PlaceReply{PodID: podID}
	if w.req.Verify {
		r.Verify = &api.VerifyResponse{}
		err = json.Unmarshal(m.Data, r.Verify)
	} else {
		r.Start = &api.StartResponse{}
		err = json.Unmarshal(m.Data, r.Start)
	}
	if err != nil {
		r = api.PlaceReply{PodID: podID, Error: fmt.Sprintf("%s on worker %s: bad answer: %v", what, podID, err)}
	}
	if r.Start != nil && r.Start.Maintenance && pl.requeue(w) {
		return // the worker went into maintenance since the view: another takes the job
	}
	pl.send(w.reply, r)
}

// requeue puts a request a worker did not take back in the queue, to be
// placed again within its max wait; false when the placer stopped or the
// wait is over.
func (pl *Placer) requeue(w *waiting) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.stopped || time.Now().After(w.deadline) {
		return false
	}
	w.why = "a worker went into maintenance or away as the job was placed"
	pl.queue = append(pl.queue, w)
	return true
}
