package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// podOps returns the builtins of pod operation (SPEC 4.13): the
// pod_logging module (a pod's loggers and handlers, changed at once on
// the running pod) and worker_obj_info().
func (e *Env) podOps() starlark.StringDict {
	const target = `The pods are those of pod_id (an id or a list of ids; a pod that is not
running counts as asked and not answering) or every live pod of
pod_type; wait bounds the wait for their answers (seconds, default 10).`
	return starlark.StringDict{
		"pod_logging": doc.Module("pod_logging", `The logging of pods: each pod's loggers (the pod and its parts:
pod, libraries, maintenance, logging, and worker, jobs on a worker;
controller, archiver on a scheduler; endpoints on an event gateway;
graphdb), each with a level (debug, info, warning, error), and its
handlers: file (the pod's log, target default or stderr) and nats
(target a subject under fabric.logs: what watch logs shows), each with
a level. A line is written when it reaches its logger's level and the
handler's. Changes take effect at once, without a restart, and are
lost when the pod restarts. Each call returns {pods: [{pod_id,
pod_type, hostname, config: {loggers, handlers}}], responded, targeted,
missing}.`, starlark.StringDict{
			"LEVELS":   frozenStrings(api.LogLevels),
			"HANDLERS": frozenStrings(api.LogHandlers),
			"get": doc.Builtin("pod_logging.get", `get(pod_id=None, pod_type=None, wait=10)

Returns the pods' logging configuration. `+target, e.podLogging(api.LoggingGet)),
			"set": doc.Builtin("pod_logging.set", `set(config, pod_id=None, pod_type=None, wait=10)

Changes the pods' logging configuration: config is a dict {loggers:
{name: level}, handlers: {name: {level, target}}}; what it leaves out
stays as it is. `+target, e.podLogging(api.LoggingSet)),
			"set_level": doc.Builtin("pod_logging.set_level", `set_level(level, pod_id=None, pod_type=None, wait=10)

Sets every logger of the pods to level. `+target, e.podLogging(api.LoggingLevel)),
			"set_handler": doc.Builtin("pod_logging.set_handler", `set_handler(handler, level=None, target=None, pod_id=None, pod_type=None, wait=10)

Changes a handler of the pods (file or nats): its level, its target, or
both. `+target, e.podLogging(api.LoggingHandler)),
		}),
		"worker_obj_info": doc.Builtin("worker_obj_info", `worker_obj_info(pod_id=None, wait=10)

Asks each live worker (or those of pod_id) for its object store: returns
{pods: [{pod_id, pod_type, hostname, site_name, server (the NATS server
it is connected to), objstore_host, bucket (the tenant's object store),
buckets: [{bucket, objects, bytes, storage, replicas, sealed}],
storage_used_bytes, storage_limit_bytes (-1: none)}], responded,
targeted, missing}.`, e.workerObjInfo),
	}
}

// frozenStrings is a frozen list of strings.
func frozenStrings(ss []string) *starlark.List {
	l := make([]starlark.Value, len(ss))
	for i, s := range ss {
		l[i] = starlark.String(s)
	}
	list := starlark.NewList(l)
	list.Freeze()
	return list
}

// podTarget reads pod_id and pod_type (one of them) and wait.
func podTarget(podID starlark.Value, podType optString, wait seconds) (api.PodTarget, time.Duration, error) {
	ids, err := stringList(podID, "pod_id")
	if err != nil {
		return api.PodTarget{}, 0, err
	}
	if len(ids) == 0 && podType == "" {
		return api.PodTarget{}, 0, fmt.Errorf("either pod_id or pod_type is required")
	}
	if wait <= 0 || time.Duration(wait*seconds(time.Second)) > client.LibraryMaxWait {
		return api.PodTarget{}, 0, fmt.Errorf("wait must be more than 0 and at most %s", client.LibraryMaxWait)
	}
	return api.PodTarget{PodType: string(podType), PodIDs: ids}, time.Duration(wait * seconds(time.Second)), nil
}

// podLogging is the builtin of a logging operation. Levels and handler
// names are checked before any pod is asked.
func (e *Env) podLogging(op string) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var podID, config starlark.Value = starlark.None, starlark.None
		var podType, level, handler, tgt optString
		wait := seconds(client.PodAskWait.Seconds())
		var pairs []any
		switch op {
		case api.LoggingSet:
			pairs = append(pairs, "config", &config)
		case api.LoggingLevel:
			pairs = append(pairs, "level", &level)
		case api.LoggingHandler:
			pairs = append(pairs, "handler", &handler, "level?", &level, "target?", &tgt)
		}
		pairs = append(pairs, "pod_id?", &podID, "pod_type?", &podType, "wait?", &wait)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
			return nil, err
		}
		t, d, err := podTarget(podID, podType, wait)
		if err != nil {
			return nil, fail(b.Name(), err)
		}
		req := api.LoggingRequest{Op: op, Handler: string(handler), Target: string(tgt)}
		if level != "" {
			if req.Level, err = api.ParseLevel(string(level)); err != nil {
				return nil, fail(b.Name(), err)
			}
		}
		switch op {
		case api.LoggingHandler:
			if err := api.CheckTarget(req.Handler, api.TargetDefault); err != nil {
				return nil, fail(b.Name(), err)
			}
			if req.Target != "" {
				if err := api.CheckTarget(req.Handler, req.Target); err != nil {
					return nil, fail(b.Name(), err)
				}
			}
			if req.Level == "" && req.Target == "" {
				return nil, fail(b.Name(), fmt.Errorf("nothing to change: give the handler's level or target"))
			}
		case api.LoggingSet:
			if req.Config, err = loggingConfig(config); err != nil {
				return nil, fail(b.Name(), err)
			}
		}
		return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
			return c.PodLogging(ctx, t, req, d)
		})
	}
}

// loggingConfig reads a configuration dict ({loggers: {name: level},
// handlers: {name: {level, target}}}) and checks its levels, handlers
// and targets; the pods check the loggers' names.
func loggingConfig(v starlark.Value) (*api.LoggingConfig, error) {
	g, err := starvalue.FromStarlark(v)
	if err != nil {
		return nil, err
	}
	m, ok := starvalue.Plain(g).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the configuration is a dict of loggers and handlers, not a %s", v.Type())
	}
	for k := range m {
		if k != "loggers" && k != "handlers" {
			return nil, fmt.Errorf("the configuration has loggers and handlers, not %q", k)
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var c api.LoggingConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("the configuration is {loggers: {NAME: LEVEL}, handlers: {NAME: {level: LEVEL, target: TARGET}}}: %v", err)
	}
	if len(c.Loggers) == 0 && len(c.Handlers) == 0 {
		return nil, fmt.Errorf("the configuration sets no logger and no handler")
	}
	for name, l := range c.Loggers {
		if c.Loggers[name], err = api.ParseLevel(l); err != nil {
			return nil, fmt.Errorf("logger %s: %v", name, err)
		}
	}
	for name, h := range c.Handlers {
		if err := api.CheckTarget(name, api.TargetDefault); err != nil {
			return nil, err
		}
		if h.Level != "" {
			if h.Level, err = api.ParseLevel(h.Level); err != nil {
				return nil, fmt.Errorf("handler %s: %v", name, err)
			}
		}
		if h.Target != "" {
			if err := api.CheckTarget(name, h.Target); err != nil {
				return nil, err
			}
		}
		c.Handlers[name] = h
	}
	return &c, nil
}

func (e *Env) workerObjInfo(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var podID starlark.Value = starlark.None
	wait := seconds(client.PodAskWait.Seconds())
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pod_id?", &podID, "wait?", &wait); err != nil {
		return nil, err
	}
	t, d, err := podTarget(podID, optString(api.Worker), wait)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.WorkerObjInfo(ctx, t.PodIDs, d)
	})
}
