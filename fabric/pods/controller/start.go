package controller

import (
	"context"
	"errors"
	"sync"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/lib/placement"
	"github.com/fabricops/fabric/fabric/pods/scheduler"
)

// start is a job a pass starts: on which worker, which pipeline, for
// whom; done is told the job's id or why it did not start.
type start struct {
	worker   placement.Worker
	pipeline api.Pipeline
	owner    api.JobOwner
	done     func(jobID string, err error)

	jobID string
	err   error
}

// startParallel is how many starts a pass has in flight at once.
const startParallel = 16

// startAll starts the pass's jobs, several at once, then tells each its
// outcome in the order they were asked.
func (p *pass) startAll() {
	sem := make(chan struct{}, startParallel)
	var wg sync.WaitGroup
	for _, s := range p.starts {
		wg.Add(1)
		sem <- struct{}{}
		go func(s *start) {
			defer wg.Done()
			defer func() { <-sem }()
			s.jobID, s.err = p.c.run(p.ctx, s.worker, s.pipeline, s.owner)
		}(s)
	}
	wg.Wait()
	for _, s := range p.starts {
		if s.err == nil {
			j := api.Job{JobID: s.jobID, PodID: s.worker.ID, Pipeline: s.pipeline.Name, Version: s.pipeline.Version,
				Status: api.JobInitializing, Created: api.Timestamp(p.now), Owner: &s.owner}
			p.c.pending[s.jobID] = j
			p.running[s.jobID] = j
		}
		s.done(s.jobID, s.err)
	}
	p.starts = nil
}

// run starts a pipeline on a worker for owner and returns the job's id.
func (c *Controller) run(ctx context.Context, w placement.Worker, pl api.Pipeline, owner api.JobOwner) (string, error) {
	req := api.RunRequest{Pipeline: pl.Name, Version: pl.Version, Steps: pl.Data.Sequence, Sources: pl.Sources, Limits: pl.Limits, Owner: &owner}
	var resp api.StartResponse
	if err := c.request(ctx, api.PodSubject(w.ID, api.EndpointRun), req, &resp); err != nil {
		return "", err
	}
	if resp.Status != "started" {
		return "", errors.New(resp.Reason)
	}
	return resp.JobID, nil
}

// placementOf is where an entry's jobs may run.
func placementOf(e blueprint.Entry) placement.Placement {
	return scheduler.Placement(api.Placement{Site: e.Site, SiteIsName: e.SiteType == "name"})
}
