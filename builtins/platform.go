package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// platform returns the top-level platform builtins: pods(), healthcheck(),
// agents(), and the pod_controller module.
func (e *Env) platform() starlark.StringDict {
	return starlark.StringDict{
		"pods": doc.Builtin("pods", `pods(type=None, versions=False)

Returns the live pods of the tenant as a list of dicts with every field
of a pod (pod_id, pod_type, pod_category, site_name, resources,
labels, pod_leader, ...), infra pods first. type keeps one pod type.
versions=True adds pod_version, platform_version and messenger_version
at the top level of each dict.`, e.podsBuiltin),
		"healthcheck": doc.Builtin("healthcheck", `healthcheck(type=None, infra=False, apps=False)

Returns the health rows of the live pods: dicts with cat,
pod_type, host, pod_id, site_name, health_parameter, status ("ok" or
"failed") and message. type keeps one pod type; infra=True keeps the
infra pods, apps=True the app pods (not both).`, e.healthBuiltin),
		"agents": doc.Builtin("agents", `agents(type=None, site=None)

Returns the live agents (event gateways) as pod dicts with agent_type
added. type keeps one agent type, site one site.`, e.agentsBuiltin),
		"agent_bots": doc.Builtin("agent_bots", `agent_bots(type=None, site=None)

Returns the bots the live agents publish: dicts with name, description,
query-type, mode, model (setting -> what it means), agent_type,
site_name and pod_id. type keeps one agent type, site one site.`, e.agentBotsBuiltin),
		"invoke_agent_bot": doc.Builtin("invoke_agent_bot", `invoke_agent_bot(bot, type="event-gateway", site=None, query=None, model=None, rows=None)

Runs a bot of an agent of type at site (the first live one) and returns
its output rows (a list of dicts, columns in order). model is a dict of
the bot's settings, rows its input (a list of dicts, for bots that take
one), query a CFXQL filter the agent applies to the output.`, e.invokeAgentBotBuiltin),
		"event_gw_status": doc.Builtin("event_gw_status", `event_gw_status()

Returns the live event gateways (pod_id and endpoints), each endpoint a
dict with name, type, address, port, stream, state (listening, disabled,
failed), error, the counters received, parsed, errors, published and
dropped, last_event, and the gateway's pod_id, hostname and site_name.
An empty list when the tenant has no event gateway.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
				return nil, err
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return c.GatewayStatus(ctx) })
		}),
		"limits": doc.Builtin("limits", `limits(scope=None)

Returns the limits in force on the tenant: dicts with scope (tenant,
job, query, endpoint, ...), limit, value (the default in force),
maximum (the most a unit may ask for; "" when it cannot ask), set_by
(where it is changed) and pod_type (the pods that enforce it; "" for
the fabric's server). scope keeps one scope.`, e.limitsBuiltin),
		"pod_controller": doc.Module("pod_controller", "The controllers that run the pods.", starlark.StringDict{
			"POD_TYPES": podTypes(),
			"status": doc.Builtin("pod_controller.status", `status()

Returns each live pod's controller status: dicts with pod_id, pod_type,
hostname, proc_id, site_name, state, restarts and started_at.`, e.controllerStatus),
			"restart": doc.Builtin("pod_controller.restart", `restart(pod_id)

Restarts a pod in place (same pod id) and returns its status as it was
asked. The pod answers again a moment later.`, e.controllerRestart),
		}),
	}
}

// The platform builtins return the client's errors as they are: Pods,
// Health, Status and Restart name what failed already ("pods: ...",
// "pod-controller restart: ..."), so they do not go through e.call.

func (e *Env) podsBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var typ optString
	var versions bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "type?", &typ, "versions?", &versions); err != nil {
		return nil, err
	}
	infos, err := e.livePods(thread, b)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	for _, p := range infos {
		if typ != "" && p.PodType != string(typ) {
			continue
		}
		var extra []starlark.Tuple
		if versions {
			extra = []starlark.Tuple{
				{starlark.String("pod_version"), starlark.String(p.Labels.PodVersion)},
				{starlark.String("platform_version"), starlark.String(p.Labels.PlatformVersion)},
				{starlark.String("messenger_version"), starlark.String(p.Labels.MessengerVersion)},
			}
		}
		d, err := dictOf(p, nil, extra)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return starlark.NewList(out), nil
}

func (e *Env) agentsBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var typ, site optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "type?", &typ, "site?", &site); err != nil {
		return nil, err
	}
	infos, err := e.livePods(thread, b)
	if err != nil {
		return nil, err
	}
	var out []starlark.Value
	for _, p := range infos {
		if !api.IsAgent(p.PodType) || (typ != "" && p.PodType != string(typ)) || (site != "" && !strings.EqualFold(p.SiteName, string(site))) {
			continue
		}
		d, err := dictOf(p, []starlark.Tuple{{starlark.String("agent_type"), starlark.String(p.PodType)}}, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return starlark.NewList(out), nil
}

// livePods returns the live pods of the tenant, infra pods first.
func (e *Env) livePods(thread *starlark.Thread, b *starlark.Builtin) ([]api.PodInfo, error) {
	c, err := e.connect(b)
	if err != nil {
		return nil, err
	}
	return c.Pods(host.Context(thread))
}

func (e *Env) healthBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var typ optString
	var infra, apps bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "type?", &typ, "infra?", &infra, "apps?", &apps); err != nil {
		return nil, err
	}
	if infra && apps {
		return nil, fmt.Errorf("%s: infra and apps are not compatible", b.Name())
	}
	c, err := e.connect(b)
	if err != nil {
		return nil, err
	}
	rows, err := c.Health(host.Context(thread))
	if err != nil {
		return nil, err
	}
	return starvalue.ToStarlark(slices.DeleteFunc(rows, func(r api.HealthRow) bool {
		return (typ != "" && r.PodType != string(typ)) ||
			(infra && r.Cat != api.CategoryInfra) ||
			(apps && r.Cat != api.CategoryApp)
	}))
}

func (e *Env) controllerStatus(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c, err := e.connect(b)
	if err != nil {
		return nil, err
	}
	st, err := c.Status(host.Context(thread))
	if err != nil {
		return nil, err
	}
	return starvalue.ToStarlark(st)
}

func (e *Env) controllerRestart(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var id string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pod_id", &id); err != nil {
		return nil, err
	}
	c, err := e.connect(b)
	if err != nil {
		return nil, err
	}
	st, err := c.Restart(host.Context(thread), id)
	if err != nil {
		return nil, err
	}
	return starvalue.ToStarlark(st)
}

// dictOf converts a wire struct to a dict, with front keys before its
// fields and back keys after them.
func dictOf(v any, front, back []starlark.Tuple) (*starlark.Dict, error) {
	sv, err := starvalue.ToStarlark(v)
	if err != nil {
		return nil, err
	}
	fields := sv.(*starlark.Dict)
	d := starlark.NewDict(fields.Len() + len(front) + len(back))
	for _, items := range [][]starlark.Tuple{front, fields.Items(), back} {
		for _, kv := range items {
			if err := d.SetKey(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// podTypes is the list of pod types (api.PodTypes), frozen: the flag
// choices of the commands that filter pods by type.
func podTypes() *starlark.List {
	l := make([]starlark.Value, len(api.PodTypes))
	for i, t := range api.PodTypes {
		l[i] = starlark.String(t)
	}
	list := starlark.NewList(l)
	list.Freeze()
	return list
}

func (e *Env) agentBotsBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var typ, site optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "type?", &typ, "site?", &site); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.AgentBots(ctx, string(typ), string(site))
	})
}

func (e *Env) invokeAgentBotBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var bot string
	typ := optString(api.EventGateway)
	var site, query optString
	var model, rows starlark.Value = starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "bot", &bot, "type?", &typ, "site?", &site, "query?", &query, "model?", &model, "rows?", &rows); err != nil {
		return nil, err
	}
	req := api.InvokeBotRequest{Bot: bot, Query: string(query)}
	for _, a := range []struct {
		name string
		v    starlark.Value
		dst  any
	}{{"model", model, &req.Model}, {"rows", rows, &req.Rows}} {
		if a.v == starlark.None {
			continue
		}
		v, err := starvalue.FromStarlark(a.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", b.Name(), a.name, err)
		}
		data, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(data, a.dst)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s must be a dict (model) or a list of dicts (rows)", b.Name(), a.name)
		}
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		resp, err := c.InvokeAgentBot(ctx, string(typ), string(site), req)
		if err != nil {
			return nil, err
		}
		out := make([]starlark.Value, len(resp.Rows))
		for i, r := range resp.Rows {
			d := starlark.NewDict(len(resp.Columns))
			for _, col := range resp.Columns {
				v, err := starvalue.ToStarlark(r[col])
				if err != nil {
					return nil, err
				}
				_ = d.SetKey(starlark.String(col), v)
			}
			out[i] = d
		}
		return starlark.NewList(out), nil
	})
}

func (e *Env) limitsBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var scope optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "scope?", &scope); err != nil {
		return nil, err
	}
	c, err := e.connect(b)
	if err != nil {
		return nil, err
	}
	rows, err := c.Limits(host.Context(thread))
	if err != nil {
		return nil, err
	}
	return starvalue.ToStarlark(slices.DeleteFunc(rows, func(r api.LimitRow) bool { return scope != "" && r.Scope != string(scope) }))
}
