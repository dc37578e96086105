package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/nats-io/nats.go"
)

// Placement says which workers may take a job (see api.Placement), and
// how long the job may wait in the scheduler's queue for one with
// capacity (MaxWait; 0: api.DefaultMaxWait, 60 s).
type Placement struct {
	Site       string
	SiteIsName bool
	LFilter    string
	RFilter    string
	MaxWait    time.Duration
}

// Records returns the tenant's job records.
func (c *Client) Records(ctx context.Context) (*jobs.Records, error) {
	s, err := c.Store(ctx)
	if err != nil {
		return nil, err
	}
	return jobs.Open(s), nil
}

// Run asks the leading scheduler to start a pipeline on a worker it picks
// by pl, and returns the start response once the job started; the job
// runs on. With no worker free the job waits in the scheduler's queue,
// at most pl.MaxWait.
func (c *Client) Run(ctx context.Context, req api.RunRequest, pl Placement) (api.StartResponse, error) {
	r, err := c.place(ctx, req, pl, false)
	if err != nil {
		return api.StartResponse{}, err
	}
	if r.Start == nil {
		return api.StartResponse{}, errors.New("the scheduler answered no start response")
	}
	if r.Start.Status != "started" {
		return *r.Start, errors.New(r.Start.Reason)
	}
	return *r.Start, nil
}

// Verify asks the leading scheduler to check a pipeline on a worker it
// picks by pl, without running it.
func (c *Client) Verify(ctx context.Context, req api.RunRequest, pl Placement) (api.VerifyResponse, error) {
	r, err := c.place(ctx, req, pl, true)
	if err != nil {
		return api.VerifyResponse{}, err
	}
	if r.Verify == nil {
		return api.VerifyResponse{}, errors.New("the scheduler answered no verification")
	}
	return *r.Verify, nil
}

// placeResend is how often a placement request no scheduler
// acknowledged is sent again.
const placeResend = time.Second

// placeSlack is how much longer than a request's max wait the client
// waits for the scheduler's final reply: the start itself on the worker.
const placeSlack = 15 * time.Second

// place sends one PlaceRequest to the leading scheduler and returns its
// final reply. The scheduler acknowledges within api.PlaceAckTimeout
// (else no scheduler leads) and answers within the max wait (and the
// start); when ctx ends first the request is withdrawn.
func (c *Client) place(ctx context.Context, run api.RunRequest, pl Placement, verify bool) (api.PlaceReply, error) {
	req := api.PlaceRequest{ID: nats.NewInbox(), Verify: verify, Run: run, MaxWait: pl.MaxWait.Seconds(),
		Placement: api.Placement{Site: pl.Site, SiteIsName: pl.SiteIsName, LFilter: pl.LFilter, RFilter: pl.RFilter}}
	data, err := json.Marshal(req)
	if err != nil {
		return api.PlaceReply{}, err
	}
	inbox := c.nc.NewRespInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return api.PlaceReply{}, err
	}
	defer func() { _ = sub.Unsubscribe() }()
	ask := func() error {
		if err := c.nc.PublishMsg(&nats.Msg{Subject: api.SubjectPlace, Reply: inbox, Data: data}); err != nil {
			return fmt.Errorf("asking the scheduler: %v", err)
		}
		return nil
	}
	if err := ask(); err != nil {
		return api.PlaceReply{}, err
	}
	// next waits for the next reply; a wait that times out withdraws the
	// request when final (an acknowledgement's wait is not final until
	// the last resend).
	next := func(timeout time.Duration, what string, final bool) (api.PlaceReply, error) {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		m, err := sub.NextMsgWithContext(wctx)
		switch {
		case errors.Is(err, nats.ErrNoResponders) || err == nil && len(m.Data) == 0 && m.Header.Get("Status") == "503":
			return api.PlaceReply{}, errors.New("no scheduler is running: jobs are placed by the leading scheduler (start one: client fabric up)")
		case err == nil:
			var r api.PlaceReply
			if err := json.Unmarshal(m.Data, &r); err != nil {
				return r, fmt.Errorf("bad answer from the scheduler: %v", err)
			}
			return r, nil
		case ctx.Err() != nil:
			c.cancelPlace(req.ID)
			return api.PlaceReply{}, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			if final {
				c.cancelPlace(req.ID)
			}
			return api.PlaceReply{}, errors.New(what)
		}
		return api.PlaceReply{}, fmt.Errorf("waiting for the scheduler: %v", err)
	}
	// Until a scheduler acknowledges, the request is sent again every
	// placeResend: one that came as the leading scheduler changed (one
	// stepping down for an upgrade, the next not yet leading) is taken
	// by the next; a scheduler takes a request id once.
	var r api.PlaceReply
	for waited := time.Duration(0); ; waited += placeResend {
		wait := min(placeResend, api.PlaceAckTimeout-waited)
		last := waited+wait >= api.PlaceAckTimeout
		r, err = next(wait, fmt.Sprintf("no scheduler leads: none answered within %s (start one, or wait for the election)", api.PlaceAckTimeout), last)
		if err == nil || ctx.Err() != nil || last || !strings.HasPrefix(err.Error(), "no scheduler leads") {
			break
		}
		if err = ask(); err != nil {
			return r, err
		}
	}
	if err == nil && r.Queued {
		wait := req.Wait() + placeSlack
		r, err = next(wait, fmt.Sprintf("timed out after %s waiting for the scheduler to start the job", wait), true)
	}
	if err != nil {
		return r, err
	}
	if r.Error != "" {
		return r, errors.New(r.Error)
	}
	return r, nil
}

// cancelPlace withdraws a waiting request the client no longer waits for.
func (c *Client) cancelPlace(id string) {
	data, _ := json.Marshal(api.PlaceCancel{ID: id})
	_ = c.nc.Publish(api.SubjectPlaceCancel, data)
}

// Jobs returns the job records, the oldest first.
func (c *Client) Jobs(ctx context.Context) ([]api.Job, error) {
	r, err := c.Records(ctx)
	if err != nil {
		return nil, err
	}
	return r.List(ctx)
}

// Job returns the job whose id starts with partial (exactly one).
func (c *Client) Job(ctx context.Context, partial string) (api.Job, error) {
	r, err := c.Records(ctx)
	if err != nil {
		return api.Job{}, err
	}
	return r.Resolve(ctx, partial)
}

// Evict stops a running job (partial id) on its worker. A job whose
// worker is gone is marked Evicted directly.
func (c *Client) Evict(ctx context.Context, partial string) (api.Job, error) {
	r, err := c.Records(ctx)
	if err != nil {
		return api.Job{}, err
	}
	j, err := r.Resolve(ctx, partial)
	if err != nil {
		return j, err
	}
	if !api.JobActive(j.Status) {
		return j, fmt.Errorf("job %s is %s, not running", j.JobID, j.Status)
	}
	wctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	err = r.Evict(wctx, c.nc, j, "evicted by the user")
	if errors.Is(err, context.DeadlineExceeded) {
		return j, fmt.Errorf("timed out after %s evicting on worker %s", Timeout, j.PodID)
	}
	if err != nil {
		return j, err
	}
	return r.Get(ctx, j.JobID)
}

// Wait watches a job's record until the job ends or timeout passes, calling each with the
// record when its status changes.
func (c *Client) Wait(ctx context.Context, jobID string, timeout time.Duration, each func(api.Job)) (api.Job, error) {
	r, err := c.Records(ctx)
	if err != nil {
		return api.Job{}, err
	}
	j, err := r.Get(ctx, jobID)
	if err != nil {
		return j, err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := ""
	err = r.Watch(wctx, jobID, func(cur api.Job) bool {
		j = cur
		if j.Status != last && each != nil {
			each(j)
		}
		last = j.Status
		return api.JobActive(j.Status)
	})
	switch {
	case err == nil:
		return j, nil
	case ctx.Err() != nil:
		return j, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return j, fmt.Errorf("timed out after %s waiting for job %s (still %s)", timeout, jobID, j.Status)
	}
	return j, err
}

// PurgeOutputs deletes the outputs of every finished job.
func (c *Client) PurgeOutputs(ctx context.Context) (int, error) {
	r, err := c.Records(ctx)
	if err != nil {
		return 0, err
	}
	return r.PurgeOutputs(ctx, time.Time{})
}

// WatchTraces calls fn with every step trace of every job on every worker
// until ctx ends.
func (c *Client) WatchTraces(ctx context.Context, fn func(api.Trace)) error {
	return watchSubject(ctx, c, api.SubjectTraces+".>", fn)
}
