package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/fabricops/fabric/fabric/pods/scheduler"
	"github.com/nats-io/nats.go"
)

// Action starts an action pipeline of a deployment (by its label or its
// pipeline's name) on a worker of its site.
func (c *Controller) Action(ctx context.Context, req api.ActionRequest) api.StartResponse {
	c.mu.Lock()
	defer c.mu.Unlock()
	fail := func(format string, args ...any) api.StartResponse {
		return api.StartResponse{Status: "failed", Reason: fmt.Sprintf(format, args...), Results: []any{}, Now: api.Timestamp(c.o.Now())}
	}
	if !c.leader() {
		return fail("this scheduler does not lead: ask the leading one")
	}
	doc, err := c.repo.GetJSON(ctx, artifact.Deployment, req.Deployment)
	if err != nil {
		return fail("%v", err)
	}
	b, err := blueprint.Parse(doc)
	if err != nil {
		return fail("deployment %s: %v", req.Deployment, err)
	}
	if !b.IsEnabled() {
		return fail("deployment %s is disabled: enable it first", b.ID)
	}
	var e *blueprint.Entry
	var names []string
	for i, a := range b.Action {
		names = append(names, a.Key())
		if a.Key() == req.Name || e == nil && a.Name == req.Name {
			e = &b.Action[i]
		}
	}
	if e == nil {
		if len(names) == 0 {
			return fail("deployment %s has no action pipelines", b.ID)
		}
		return fail("deployment %s has no action pipeline %q (it has: %s)", b.ID, req.Name, strings.Join(names, ", "))
	}
	p, err := c.newPass(ctx)
	if err != nil {
		return fail("%v", err)
	}
	pl, err := p.pipeline(*e)
	if err != nil {
		return fail("%v", err)
	}
	w, err := p.picker.Pick(placementOf(*e))
	if err != nil {
		return fail("%v", err)
	}
	owner := api.JobOwner{Kind: api.OwnerAction, Deployment: b.ID, DeploymentName: b.Name, Label: e.Key()}
	id, err := c.run(ctx, w, pl, owner)
	if err != nil {
		return fail("starting the job on worker %s: %v", w.ID, err)
	}
	c.pending[id] = api.Job{JobID: id, PodID: w.ID, Pipeline: pl.Name, Version: pl.Version, Status: api.JobInitializing, Created: api.Timestamp(c.o.Now()), Owner: &owner}
	c.activity(ctx, api.Activity{Severity: api.SeverityInfo, Deployment: b.ID, JobID: id,
		Message: fmt.Sprintf("Started job %s of deployment %s (id %s), action %s, on worker %s", id, b.Name, b.ID, e.Key(), w.ID)})
	return api.StartResponse{Status: "started", Results: []any{}, Now: api.Timestamp(c.o.Now()), StatusSubject: api.TraceSubject(w.ID, id), JobID: id}
}

// Serve runs a controller on the scheduler pod p until it stops: it
// passes while p leads and answers the deployment-action endpoint. It
// starts the scheduler's placement service too (scheduler.Serve), which
// places the jobs clients run.
func Serve(p *pod.Pod, o Options) error {
	if o.Logf == nil {
		o.Logf = p.Logf
	}
	if _, err := scheduler.Serve(p, scheduler.PlacerOptions{}); err != nil {
		return fmt.Errorf("the scheduler's placement: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := New(ctx, p.Conn(), p.Leader, o)
	if err != nil {
		return err
	}
	sub, err := p.Conn().Subscribe(api.PodSubject(p.ID, api.EndpointDeploymentAction), func(m *nats.Msg) {
		var req api.ActionRequest
		if err := json.Unmarshal(m.Data, &req); err != nil {
			pod.Reply(m, api.StartResponse{Status: "failed", Reason: "bad action request: " + err.Error(), Results: []any{}})
			return
		}
		actx, acancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer acancel()
		pod.Reply(m, c.Action(actx, req))
	})
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	p.OnStop(func() {
		_ = sub.Unsubscribe()
		close(stop)
	})
	go c.Run(stop)
	return nil
}
