package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/infra/jobs"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/nats-io/nats.go/jetstream"
)

// lookup is the fabric as the blueprint analyses read it.
type lookup struct{ c *Client }

var _ blueprint.Lookup = lookup{}

func (l lookup) PipelineVersions(ctx context.Context, name string) ([]api.Pipeline, error) {
	vs, err := l.c.Data.PipelineVersions(ctx, name)
	if errors.Is(err, tenant.ErrNoPipeline) {
		return nil, nil
	}
	return vs, err
}

func (l lookup) WorkerSites(ctx context.Context) ([]string, error) {
	pods, err := l.c.Pods(ctx)
	if err != nil {
		return nil, err
	}
	var sites []string
	for _, p := range pods {
		if p.PodType == api.Worker {
			sites = append(sites, p.SiteName)
		}
	}
	return sites, nil
}

func (l lookup) StreamExists(ctx context.Context, name string) (bool, error) {
	return streams.Exists(ctx, l.c.JetStream(), name)
}

func (l lookup) DatasetExists(ctx context.Context, name string) (bool, error) {
	return l.c.Data.DatasetExists(ctx, name)
}

// Deployment is a deployment read and resolved: its blueprint, the
// pipeline version each entry runs, and its audit.
type Deployment struct {
	Blueprint *blueprint.Blueprint
	Resolved  []blueprint.Resolved
	Findings  []blueprint.Finding
}

// Deployment reads the deployment id, resolves its pipelines and audits
// it against the fabric.
func (c *Client) Deployment(ctx context.Context, id string) (*Deployment, error) {
	st, err := c.Data.Store(ctx)
	if err != nil {
		return nil, err
	}
	doc, err := (&artifact.Repo{Store: st}).GetJSON(ctx, artifact.Deployment, id)
	if err != nil {
		return nil, err
	}
	return c.analyse(ctx, doc)
}

// Deployments reads and audits every deployment, by id.
func (c *Client) Deployments(ctx context.Context) ([]*Deployment, error) {
	st, err := c.Data.Store(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := (&artifact.Repo{Store: st}).List(ctx, artifact.Deployment)
	if err != nil {
		return nil, err
	}
	out := make([]*Deployment, 0, len(recs))
	for _, r := range recs {
		d, err := c.analyse(ctx, r.Doc.JSON())
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func (c *Client) analyse(ctx context.Context, doc []byte) (*Deployment, error) {
	b, err := blueprint.Parse(doc)
	if err != nil {
		return nil, fmt.Errorf("deployment: %v", err)
	}
	l := lookup{c}
	rs, err := blueprint.ResolveAll(ctx, l, b)
	if err != nil {
		return nil, err
	}
	fs, err := blueprint.Audit(ctx, l, b, rs)
	if err != nil {
		return nil, err
	}
	return &Deployment{Blueprint: b, Resolved: rs, Findings: fs}, nil
}

// Counts returns the errors and warnings of the deployment's audit.
func (d *Deployment) Counts() (errors, warnings int) { return blueprint.Count(d.Findings) }

// Dependencies returns what the deployment depends on.
func (d *Deployment) Dependencies() []blueprint.Dependency { return blueprint.Dependencies(d.Resolved) }

// DeploymentMap is a deployment's map (SPEC 2.8): {status, reason,
// data.stack: {name, description, nodes, relationships}}.
type DeploymentMap = blueprint.Map

// Map returns the deployment's map.
func (d *Deployment) Map() DeploymentMap { return blueprint.BuildMap(d.Blueprint, d.Resolved) }

// ServiceRow is a row of deployment svcs-status: a service entry, the
// pipeline version it runs, its instances and its running jobs.
type ServiceRow struct {
	Label        string `json:"label"`
	PipelineName string `json:"pipeline_name"`
	Version      string `json:"version"`
	MinInstances int    `json:"min_instances"`
	MaxInstances int    `json:"max_instances"`
	Instances    int    `json:"instances"`
	NumJobs      int    `json:"num_jobs"`
}

// ServiceStatus returns a row per service entry of the deployment id.
func (c *Client) ServiceStatus(ctx context.Context, id string) ([]ServiceRow, error) {
	d, err := c.Deployment(ctx, id)
	if err != nil {
		return nil, err
	}
	running, err := c.ownedJobs(ctx)
	if err != nil {
		return nil, err
	}
	rows := []ServiceRow{}
	for _, r := range d.Resolved {
		if r.Kind != blueprint.KindService {
			continue
		}
		row := ServiceRow{Label: r.Key(), PipelineName: r.Name, Version: r.Pipeline.Version, Instances: r.Want()}
		if !r.OK {
			row.Version = "(" + r.Why + ")"
		}
		if p := r.ScalingPolicy; p != nil {
			row.MinInstances, row.MaxInstances = p.MinInstances, p.MaxInstances
		}
		for _, j := range running {
			if o := j.Owner; o.Kind == api.OwnerService && o.Deployment == id && o.Label == r.Key() {
				row.NumJobs++
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ownedJobs returns the active jobs a deployment or schedule owns.
func (c *Client) ownedJobs(ctx context.Context) ([]api.Job, error) {
	st, err := c.Data.Store(ctx)
	if err != nil {
		return nil, err
	}
	all, err := jobs.Open(st).List(ctx)
	if err != nil {
		return nil, err
	}
	var out []api.Job
	for _, j := range all {
		if j.Owner != nil && api.JobActive(j.Status) {
			out = append(out, j)
		}
	}
	return out, nil
}

// Activity returns the deployment activity feed, the oldest first: of
// the deployment id only, unless id is empty; the last max entries when
// max > 0.
func (c *Client) Activity(ctx context.Context, id string, max int) ([]api.Activity, error) {
	out := []api.Activity{}
	_, err := streams.Read(ctx, c.JetStream(), api.StreamDeploymentUpdates, streams.ReadOptions{}, func(m streams.Message) error {
		var a api.Activity
		if json.Unmarshal(m.Data, &a) != nil || id != "" && a.Deployment != id {
			return nil
		}
		out = append(out, a)
		if max > 0 && len(out) > 2*max {
			out = append(out[:0], out[len(out)-max:]...)
		}
		return nil
	})
	if errors.Is(err, streams.ErrNotFound) {
		return out, nil
	}
	if max > 0 && len(out) > max {
		out = out[len(out)-max:]
	}
	return out, err
}

// leader returns the id of the leading scheduler.
func (c *Client) leader(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	kv, err := c.JetStream().KeyValue(ctx, api.LeasesBucket)
	if err == nil {
		var e jetstream.KeyValueEntry
		if e, err = kv.Get(ctx, api.Scheduler); err == nil {
			return string(e.Value()), nil
		}
	}
	if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", errors.New("no scheduler leads: start one (the controller runs on the leading scheduler)")
	}
	return "", fmt.Errorf("reading the scheduler lease: %v", err)
}

// DeploymentAction starts the action pipeline name (its label or its
// pipeline's name) of the deployment id, through the leading scheduler's
// controller, and returns the start response.
func (c *Client) DeploymentAction(ctx context.Context, id, name string) (api.StartResponse, error) {
	var resp api.StartResponse
	if _, err := c.Deployment(ctx, id); err != nil {
		return resp, err
	}
	leader, err := c.leader(ctx)
	if err != nil {
		return resp, err
	}
	err = c.request(ctx, api.PodSubject(leader, api.EndpointDeploymentAction), api.ActionRequest{Deployment: id, Name: name}, &resp, "asking the leading scheduler "+leader)
	if err != nil {
		return resp, err
	}
	if resp.Status != "started" {
		return resp, errors.New(resp.Reason)
	}
	return resp, nil
}

// ScheduleInfo is a schedule with its next and last runs.
type ScheduleInfo struct {
	Schedule *blueprint.Schedule
	Next     []time.Time
	// Last are the last runs, the newest first, with their jobs'
	// statuses.
	Last []ScheduleRun
}

// ScheduleRun is a run of a schedule and its job's status.
type ScheduleRun struct {
	Time   time.Time `json:"time"`
	JobID  string    `json:"jobid"`
	Status string    `json:"status"`
	Reason string    `json:"reason"`
}

// ScheduleInfo reads the schedule name, its next n runs and its last
// runs as the controller kept them.
func (c *Client) ScheduleInfo(ctx context.Context, name string, n int) (*ScheduleInfo, error) {
	st, err := c.Data.Store(ctx)
	if err != nil {
		return nil, err
	}
	doc, err := (&artifact.Repo{Store: st}).GetJSON(ctx, artifact.Schedule, name)
	if err != nil {
		return nil, err
	}
	s, err := blueprint.ParseSchedule(doc)
	if err != nil {
		return nil, fmt.Errorf("schedule %s: %v", name, err)
	}
	info := &ScheduleInfo{Schedule: s}
	if s.Status == blueprint.ScheduleEnabled {
		cr, err := s.CronSchedule()
		if err != nil {
			return nil, err
		}
		info.Next = blueprint.NextRuns(cr, time.Now(), n)
	}
	var cs api.CronState
	_, err = st.Get(ctx, api.ControllerBucket, api.ScheduleStatePrefix+store.Key(name), &cs)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	recs := jobs.Open(st)
	for i := len(cs.Runs) - 1; i >= 0; i-- {
		r := cs.Runs[i]
		row := ScheduleRun{Time: r.Time, JobID: r.JobID, Status: "Not started", Reason: r.Error}
		if r.JobID != "" {
			if j, err := recs.Get(ctx, r.JobID); err == nil {
				row.Status, row.Reason = j.Status, j.Reason
			} else {
				row.Status = "Unknown"
			}
		}
		info.Last = append(info.Last, row)
	}
	return info, nil
}
