//go:build !lean

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/nats-io/nats.go"
)

// Placement says which workers may take a job: a site (a name or a
// regular expression matching the whole name), a CFXQL filter on the
// worker's labels and one on its resources. Each worker's own
// capacity_filter must hold too.
type Placement struct {
	Site    string
	LFilter string
	RFilter string
}

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
	var site *regexp.Regexp
	if pl.Site != "" {
		if site, err = regexp.Compile("^(?:" + pl.Site + ")$"); err != nil {
			return api.PodInfo{}, fmt.Errorf("--site %q is not a valid name or pattern: %v", pl.Site, err)
		}
	}
	lf, err := parseFilter("lfilter", pl.LFilter)
	if err != nil {
		return api.PodInfo{}, err
	}
	rf, err := parseFilter("rfilter", pl.RFilter)
	if err != nil {
		return api.PodInfo{}, err
	}
	var workers, candidates []api.PodInfo
	why := map[string]int{}
	for _, p := range pods {
		if p.PodType != api.Worker {
			continue
		}
		workers = append(workers, p)
		labels, resources := asMap(p.Labels), asMap(p.Resources)
		labels["site_name"], labels["pod_id"], labels["hostname"] = p.SiteName, p.PodID, p.Hostname
		switch {
		case site != nil && !site.MatchString(p.SiteName):
			why["not at site "+pl.Site]++
		case lf != nil && !matches(lf, labels):
			why["labels do not match --lfilter"]++
		case rf != nil && !matches(rf, resources):
			why["resources do not match --rfilter"]++
		case !capacityOK(p.CapacityFilter, resources):
			why["over capacity ("+p.CapacityFilter+")"]++
		default:
			candidates = append(candidates, p)
		}
	}
	if len(workers) == 0 {
		return api.PodInfo{}, errors.New("no worker is running: start one (client fabric up --workers 1)")
	}
	if len(candidates) == 0 {
		reasons := make([]string, 0, len(why))
		for r, n := range why {
			reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
		}
		sort.Strings(reasons)
		return api.PodInfo{}, fmt.Errorf("no worker matches: of %d workers, %s", len(workers), joinList(reasons))
	}
	rand.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	sort.SliceStable(candidates, func(i, j int) bool {
		return candidates[i].Resources.PodUsageActiveJobs < candidates[j].Resources.PodUsageActiveJobs
	})
	return candidates[0], nil
}

func parseFilter(flag, q string) (*cfxql.Query, error) {
	if q == "" {
		return nil, nil
	}
	p, err := cfxql.Parse(q)
	if err != nil {
		return nil, fmt.Errorf("--%s: %v", flag, err)
	}
	return p, nil
}

func matches(q *cfxql.Query, m map[string]any) bool {
	ok, err := q.Match(m)
	return err == nil && ok
}

// capacityOK evaluates a worker's capacity filter on its resources; a
// filter that does not parse does not hold a worker back.
func capacityOK(filter string, resources map[string]any) bool {
	if filter == "" {
		return true
	}
	q, err := cfxql.Parse(filter)
	if err != nil {
		return true
	}
	return matches(q, resources)
}

// asMap turns a struct into the map of its JSON fields.
func asMap(v any) map[string]any {
	data, _ := json.Marshal(v)
	m := map[string]any{}
	_ = json.Unmarshal(data, &m)
	return m
}

func joinList(items []string) string {
	switch len(items) {
	case 0:
		return "none fit"
	case 1:
		return items[0]
	}
	out := ""
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
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
	var out json.RawMessage
	err = c.request(ctx, api.PodSubject(j.PodID, api.EndpointEvict), api.EvictRequest{JobID: j.JobID, Reason: "evicted by the user"}, &out, "evicting on worker "+j.PodID)
	if errors.Is(err, nats.ErrNoResponders) {
		return r.Finish(ctx, j.JobID, api.JobEvicted, "evicted by the user (its worker was gone)", nil)
	}
	if err != nil {
		return j, err
	}
	var e api.Error
	if json.Unmarshal(out, &e) == nil && e.Error != "" {
		return j, errors.New(e.Error)
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

// OutputTable returns the output of a completed job (partial id) as a
// lazy table, its count from the job's record.
func (c *Client) OutputTable(ctx context.Context, partial string) (*lazy.Table, api.Job, error) {
	j, err := c.Job(ctx, partial)
	if err != nil {
		return nil, j, err
	}
	switch {
	case api.JobActive(j.Status):
		return nil, j, fmt.Errorf("job %s is still %s: its output is not there yet", j.JobID, j.Status)
	case j.Status != api.JobCompleted:
		return nil, j, fmt.Errorf("job %s %s and has no output: %s", j.JobID, lowerStatus(j.Status), j.Reason)
	case j.Output == "":
		return nil, j, fmt.Errorf("the output of job %s was purged", j.JobID)
	}
	return lazy.New(c.StoredInput(j.Output, frame.Parquet, lazy.Meta{Rows: j.OutputRows})), j, nil
}

func lowerStatus(s string) string {
	switch s {
	case api.JobFailed:
		return "failed"
	case api.JobEvicted:
		return "was evicted"
	}
	return "is " + s
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
