package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/lib/blueprint"
)

// lookup is the fabric as the blueprint analyses read it.
type lookup struct{ c *Client }

var _ blueprint.Lookup = lookup{}

func (l lookup) PipelineVersions(ctx context.Context, name string) ([]api.Pipeline, error) {
	vs, err := l.c.Data.PipelineVersions(ctx, name)
	if err != nil && strings.HasPrefix(err.Error(), "no pipeline named") {
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
	_, err := streams.Get(ctx, l.c.JetStream(), name)
	if errors.Is(err, streams.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (l lookup) DatasetExists(ctx context.Context, name string) (bool, error) {
	_, err := l.c.Data.Dataset(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
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

// Map returns the deployment's map.
func (d *Deployment) Map() blueprint.Map { return blueprint.BuildMap(d.Blueprint, d.Resolved) }
