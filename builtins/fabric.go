package builtins

import (
	"context"
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"

	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// fabricModule manages the local fabric and shows the network
// configuration.
func (e *Env) fabricModule() starlark.Value {
	members := starlark.StringDict{
		"up": doc.Builtin("fabric.up", `up(tenants=None, workers=0, graphdb_url="", graphdb_user="")

Starts the local fabric in the background (an embedded NATS server and
each tenant's pods) and waits until it is ready. Without tenants or
workers it starts as it ran last time (first time: tenant "default", 2
workers). Each tenant gets an embedded graph database unless graphdb_url
names a real ArangoDB (its user graphdb_user, default root; password in
FABRIC_GRAPHDB_PASSWORD); "embedded"
goes back to the embedded one; empty keeps the last choice. Writes one network
configuration per tenant under FABRIC_HOME/tenants/, and the first
tenant's as the default one. When it runs already it is left alone.
Returns its state: pid, url, tenants, workers, started_at, started
(False when it ran already).`, e.fabricUp),
		"down": doc.Builtin("fabric.down", `down()

Stops the local fabric gracefully (pods drained, server shut down, data
kept). Returns True when it was running.`, e.fabricDown),
		"status": doc.Builtin("fabric.status", `status()

Returns the local fabric's state (pid, url, tenants, workers,
started_at, license_expires, version), or None when it is not running.`, e.fabricStatus),
		"logs": doc.Builtin("fabric.logs", `logs(lines=0)

Returns the local fabric's log, its last lines only when lines > 0.`, e.fabricLogs),
		"gc": doc.Builtin("fabric.gc", `gc(dry_run=False, grace="15m")

Asks the api-server to remove the tenant's data that no record names:
stored files (dataset data, object content, job outputs) and the chunks
of uploads that never completed, older than grace (a duration such as
"15m", "1h" or "0s"). Returns the report: dry_run, blobs (the paths),
blob_bytes, uploads, chunks, young (unreferenced but younger than grace,
left alone) and freed_bytes.`, e.fabricGC),
		"config": doc.Builtin("fabric.config", `config()

Returns the network configuration in use, with its secrets redacted,
and its path under "path".`, e.fabricConfig),
	}
	for k, v := range e.fabricUpgradeMembers() {
		members[k] = v
	}
	return doc.Module("fabric", "The local fabric (the embedded default), the network configuration, and rolling upgrades.", members)
}

func (e *Env) fabricUp(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var tenants starlark.Value = starlark.None
	workers := 0
	var graphURL, graphUser string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "tenants?", &tenants, "workers?", &workers, "graphdb_url?", &graphURL, "graphdb_user?", &graphUser); err != nil {
		return nil, err
	}
	list, ok := tenants.(*starlark.List)
	if tenants != starlark.None && !ok {
		return nil, fmt.Errorf("%s: tenants must be a list of names or None", b.Name())
	}
	var names []string
	for i := 0; list != nil && i < list.Len(); i++ {
		s, ok := starlark.AsString(list.Index(i))
		if !ok {
			return nil, fmt.Errorf("%s: tenants must be strings", b.Name())
		}
		if err := client.ValidTenantName(s); err != nil {
			return nil, fail(b.Name(), err)
		}
		names = append(names, s)
	}
	if workers < 0 {
		return nil, fmt.Errorf("%s: workers must be 1 or more", b.Name())
	}
	st, started, err := client.LocalUp(e.Home, client.LocalUpOptions{Tenants: names, Workers: workers, Daemon: e.Daemon, GraphDBURL: graphURL, GraphDBUser: graphUser})
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return dictOf(st, nil, []starlark.Tuple{{starlark.String("started"), starlark.Bool(started)}})
}

func (e *Env) fabricDown(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	e.Close()
	was, err := client.LocalDown(e.Home)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return starlark.Bool(was), nil
}

func (e *Env) fabricStatus(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	st, err := client.LocalStatus(e.Home)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	if st == nil {
		return starlark.None, nil
	}
	return starvalue.ToStarlark(st)
}

func (e *Env) fabricLogs(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	lines := 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "lines?", &lines); err != nil {
		return nil, err
	}
	text, err := client.LocalLogs(e.Home, lines)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return starlark.String(text), nil
}

func (e *Env) fabricConfig(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	path := client.ConfigPath(e.Home)
	cfg, err := client.LoadConfig(path)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return dictOf(cfg.Redacted(), []starlark.Tuple{{starlark.String("path"), starlark.String(path)}}, nil)
}

func (e *Env) fabricGC(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var req api.GCRequest
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dry_run?", &req.DryRun, "grace?", &req.Grace); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return c.GC(ctx, req) })
}
