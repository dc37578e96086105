package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/lib/placement"
)

// Placement says which workers may take a job (see placement.Placement).
type Placement = placement.Placement

// Records returns the tenant's job records.
func (c *Client) Records(ctx context.Context) (*jobs.Records, error) {
	s, err := c.Store(ctx)
	if err != nil {
		return nil, err
	}
	return jobs.Open(s), nil
}

// PickWorker chooses a live worker for a job: among those that match pl
// and whose capacity filter holds, the one with the fewest active jobs.
func (c *Client) PickWorker(ctx context.Context, pl Placement) (api.PodInfo, error) {
	pods, err := c.Pods(ctx)
	if err != nil {
		return api.PodInfo{}, err
	}
	return placement.Pick(pods, pl)
}

// Run starts a pipeline on a worker chosen by pl and returns the start
// response at once; the job runs on.
func (c *Client) Run(ctx context.Context, req api.RunRequest, pl Placement) (api.StartResponse, error) {
	w, err := c.PickWorker(ctx, pl)
	if err != nil {
		return api.StartResponse{}, err
	}
	var resp api.StartResponse
	if err := c.request(ctx, api.PodSubject(w.PodID, api.EndpointRun), req, &resp, "starting the job on worker "+w.PodID); err != nil {
		return resp, err
	}
	if resp.Status != "started" {
		return resp, errors.New(resp.Reason)
	}
	return resp, nil
}

// Verify checks a pipeline on a worker chosen by pl, without running it.
func (c *Client) Verify(ctx context.Context, req api.RunRequest, pl Placement) (api.VerifyResponse, error) {
	w, err := c.PickWorker(ctx, pl)
	if err != nil {
		return api.VerifyResponse{}, err
	}
	var resp api.VerifyResponse
	err = c.request(ctx, api.PodSubject(w.PodID, api.EndpointVerify), req, &resp, "verifying on worker "+w.PodID)
	return resp, err
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
