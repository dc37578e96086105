package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// kindFunctions are the functions a kind's module has beside the verbs
// every kind has, by module name.
var kindFunctions = map[string]func(e *Env) starlark.StringDict{
	"dashboard":      (*Env).dashboardFunctions,
	"deployment":     (*Env).deploymentFunctions,
	"event_endpoint": (*Env).eventEndpointFunctions,
	"schedule":       (*Env).scheduleFunctions,
	"synthetics":     (*Env).syntheticsFunctions,
	"subscription":   (*Env).subscriptionFunctions,
}

// dashboardFunctions are open, live_edit, verify, to_app and convert of
// the dashboard module.
func (e *Env) dashboardFunctions() starlark.StringDict {
	open := func(ctx context.Context, c *client.Client) (*client.Dashboards, error) {
		r, err := artifactRepo(ctx, c)
		if err != nil {
			return nil, err
		}
		return &client.Dashboards{Repo: r, Data: c.Data}, nil
	}
	return starlark.StringDict{
		"open": e.dashboardOpen(),
		"live_edit": doc.Builtin("dashboard.live_edit", `live_edit(name, editor=None)

Edits a dashboard in an editor (editor, else $VISUAL, else $EDITOR, else
vi; a command line, run with the file's path appended). Each save is
checked and stored at once, at the revision the last one left, so a
change someone else made meanwhile is never overwritten; a save that
fails its check is reported and not stored. When the editor exits with
its last save not stored, the file is kept and its path is in the error.
Returns how many saves were stored.`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var name string
				var editor optString
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "editor?", &editor); err != nil {
					return nil, err
				}
				return e.liveEdit(thread, b, client.DashboardKind, name, string(editor))
			}),
		"verify": doc.Builtin("dashboard.verify", `verify(name)

Checks each widget of a dashboard, and of its pages when it is an app:
whether its stream is a dataset or a persistent stream of the tenant
(stream_status "found" or "not found") and which of its columns that
source lacks. Returns one dict per widget that reads a stream: dashboard,
type ("dashboard" or "page"), widget_type, title, stream, columns,
stream_status, missing_columns.`,
			e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
				ds, err := open(ctx, c)
				if err != nil {
					return nil, err
				}
				return ds.Verify(ctx, name)
			})),
		"to_app": doc.Builtin("dashboard.to_app", `to_app(name)

Turns a tabbed or sectioned dashboard into an app: each section becomes
an internal dashboard (NAME_page1, NAME_page2, ...) and the dashboard
lists them as its pages. Returns the pages: dicts of name and label.`,
			e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
				ds, err := open(ctx, c)
				if err != nil {
					return nil, err
				}
				return ds.ToApp(ctx, name)
			})),
		"convert": doc.Builtin("dashboard.convert", `convert()

Rewrites every dashboard written as YAML as JSON. Returns one dict per
dashboard: name, and converted (False when it was JSON already).`,
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) {
				ds, err := open(ctx, c)
				if err != nil {
					return nil, err
				}
				return ds.Convert(ctx)
			})),
	}
}
