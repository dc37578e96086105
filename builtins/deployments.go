package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/client"
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
	}
}

// yesNo writes a boolean as the status tables do.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
