package builtins

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/mapsvg"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// deploymentFunctions are status, audit_report, dependencies and map of
// the deployment module: what a deployment is, read against the fabric.
func (e *Env) deploymentFunctions() starlark.StringDict {
	idCall := func(do func(ctx context.Context, d *client.Deployment) (any, error)) builtinFunc {
		return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var id string
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "id", &id); err != nil {
				return nil, err
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
				d, err := c.Deployment(ctx, id)
				if err != nil {
					return nil, err
				}
				return do(ctx, d)
			})
		}
	}
	return starlark.StringDict{
		"activity": doc.Builtin("deployment.activity", `activity(id=None, max=0)

Returns the deployment activity feed, the oldest first: a row
(timestamp, severity, message, deployment_id, jobid) per thing the
controller did: jobs started, re-created (naming the job, the deployment
and the restart count), stopped, and why an entry could not start.
Only the deployment id's entries with id; the last max with max > 0.`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var id optString
				var max int
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "id?", &id, "max?", &max); err != nil {
					return nil, err
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					if id != "" {
						if _, err := c.Deployment(ctx, string(id)); err != nil {
							return nil, err
						}
					}
					return c.Activity(ctx, string(id), max)
				})
			}),
		"svcs_status": doc.Builtin("deployment.svcs_status", `svcs_status(id)

Returns a row per service pipeline of a deployment: label,
pipeline_name, version (the one it runs), min_instances, max_instances,
instances (wanted) and num_jobs (running now).`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var id string
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "id", &id); err != nil {
					return nil, err
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return c.ServiceStatus(ctx, id) })
			}),
		"action": doc.Builtin("deployment.action", `action(id, name)

Starts an action pipeline of a deployment (name: its label, or its
pipeline's name) on a worker of its site, through the leading
scheduler. Returns the start response (status, reason, results, now,
status-subject, jobid).`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var id, name string
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "id", &id, "name", &name); err != nil {
					return nil, err
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					return c.DeploymentAction(ctx, id, name)
				})
			}),
		"wait": doc.Builtin("deployment.wait", `wait(id, timeout=60)

Waits until every service pipeline of a deployment runs its instances,
and returns svcs_status(id). Fails after timeout seconds, naming the
services still short.`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var id string
				var timeout starlark.Value = starlark.MakeInt(60)
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "id", &id, "timeout?", &timeout); err != nil {
					return nil, err
				}
				secs, ok := starlark.AsFloat(timeout)
				if !ok || secs <= 0 {
					return nil, fmt.Errorf("%s: timeout is a number of seconds above 0, not %s", b.Name(), timeout)
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					return waitServices(ctx, c, id, time.Duration(secs*float64(time.Second)))
				})
			}),
		"status": doc.Builtin("deployment.status", `status()

Returns a row per deployment: id, category, name, description, enabled
("yes" or "no"), and the errors and warnings of its audit report.`,
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) {
				ds, err := c.Deployments(ctx)
				if err != nil {
					return nil, err
				}
				type row struct {
					ID          string `json:"id"`
					Category    string `json:"category"`
					Name        string `json:"name"`
					Description string `json:"description"`
					Enabled     string `json:"enabled"`
					Errors      int    `json:"errors"`
					Warnings    int    `json:"warnings"`
				}
				rows := []row{}
				for _, d := range ds {
					b := d.Blueprint
					errs, warns := d.Counts()
					rows = append(rows, row{b.ID, b.Category, b.Name, b.Text(), yesNo(b.IsEnabled()), errs, warns})
				}
				return rows, nil
			})),
		"audit_report": doc.Builtin("deployment.audit_report", `audit_report(id)

Checks a deployment against the fabric: a row (type, severity, message)
per finding. Verify Pipeline: each entry's pipeline version is
published (ERROR when not); Verify Site: a live worker matches its site
(ERROR when none does); Verify Source: its pipeline's sources exist;
Verify Persistent Stream: the streams its pipelines read and write
exist.`, idCall(func(_ context.Context, d *client.Deployment) (any, error) { return d.Findings, nil })),
		"dependencies": doc.Builtin("deployment.dependencies", `dependencies(id)

Returns what a deployment depends on: a row (type, name, read, write)
per pipeline it runs, dataset and stream they read or write (from the
pipelines' artifacts and steps), and the system streams it writes.`,
			idCall(func(_ context.Context, d *client.Deployment) (any, error) {
				return d.Dependencies(), nil
			})),
		"map": doc.Builtin("deployment.map", `map(id)

Returns a deployment's map: {status, reason, data: {stack: {name,
description, nodes, relationships}}}: the deployment, its pipelines and
what they read and write, as nodes (node_id, node_type, layer, iconURL,
node_label, defaultVisibility) and relationships (left_id, right_id,
description, relationship_type).`,
			idCall(func(_ context.Context, d *client.Deployment) (any, error) {
				return d.Map(), nil
			})),
		"map_svg": doc.Builtin("deployment.map_svg", `map_svg(id, all=False)

Returns a deployment's map drawn as an SVG picture (a string): its layers
as columns from left to right (the deployment, its pipelines, what they
read and write), each node a box coloured by its type, each relationship
an arrow whose tooltip is its description (reads dashed). The nodes
hidden by default (the system streams) are drawn only with all=True. The
picture is standalone: it opens offline in a browser or image viewer.`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var id string
				all := false
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "id", &id, "all?", &all); err != nil {
					return nil, err
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					d, err := c.Deployment(ctx, id)
					if err != nil {
						return nil, err
					}
					var svg strings.Builder
					if _, _, err := mapsvg.Render(&svg, mapPicture(d.Map(), all)); err != nil {
						return nil, err
					}
					return svg.String(), nil
				})
			}),
	}
}

// mapPicture is what mapsvg draws of a deployment's map: its nodes (the
// hidden ones with all only) and relationships, titled by the stack's
// name, with the map's status and reason under it.
func mapPicture(m client.DeploymentMap, all bool) mapsvg.Map {
	st := m.Data.Stack
	p := mapsvg.Map{Title: st.Name, Caption: m.Status}
	if m.Reason != "" {
		p.Caption += ": " + m.Reason
	}
	for _, n := range st.Nodes {
		if n.DefaultVisibility == "hidden" && !all {
			continue
		}
		p.Nodes = append(p.Nodes, mapsvg.Node{ID: n.ID, Type: n.Type, Label: n.Label, Layer: n.Layer})
	}
	for _, r := range st.Relationships {
		p.Edges = append(p.Edges, mapsvg.Edge{From: r.Left, To: r.Right, Label: r.Description, Type: r.Type})
	}
	return p
}

// yesNo writes a boolean as the status tables do.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// waitServices polls a deployment's services until each runs its
// instances, or timeout passes.
func waitServices(ctx context.Context, c *client.Client, id string, timeout time.Duration) ([]client.ServiceRow, error) {
	deadline := time.Now().Add(timeout)
	for {
		rows, err := c.ServiceStatus(ctx, id)
		if err != nil {
			return nil, err
		}
		var short []string
		for _, r := range rows {
			if r.NumJobs < r.Instances {
				short = append(short, fmt.Sprintf("%s (%d of %d)", r.Label, r.NumJobs, r.Instances))
			}
		}
		if len(short) == 0 {
			return rows, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("timed out after %s waiting for deployment %s: %s", timeout, id, strings.Join(short, ", "))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
