package builtins

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/botquery"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// jobBuiltins are the top-level builtins of jobs: pipelines running on
// workers (SPEC 2.9, 4.1).
func (e *Env) jobBuiltins() starlark.StringDict {
	return starlark.StringDict{
		"run": doc.Builtin("run", `run(name=None, version=None, file=None, site=None, lfilter=None, rfilter=None, max_wait=None, full=False)

Starts a pipeline on a worker and returns the job id at once; the job runs
on. The pipeline is a stored one (name, and version: the latest by
default) or a local file (YAML, JSON or the --> text form). The worker is
one at site (a name or pattern) whose labels match lfilter and resources
match rfilter (CFXQL), and whose own capacity filter holds; the least busy
of them; when none has capacity the run waits in the scheduler's queue
up to max_wait seconds (default 60). With full=True the start response (status, reason, results, now,
status-subject, jobid) is returned instead of the id.`, e.runBuiltin),
		"run_bot": doc.Builtin("run_bot", `run_bot(tag, params={}, site=None, lfilter=None, rfilter=None, full=False, max_wait=None)

Starts a job of one bot of the workers (tag, such as "@dm:bots-by-source",
with params, a dict of its parameters) on a worker placed as run places
it, and returns the job id at once (the start response with full=True).
The job's output is the bot's.`, e.runBotBuiltin),
		"verify_pipeline": doc.Builtin("verify_pipeline", `verify_pipeline(name=None, version=None, file=None, site=None, lfilter=None, rfilter=None, max_wait=None)

Checks a pipeline on a worker without running it: syntax, unknown bots,
parameters. Returns the number of steps; fails naming the step.`, e.verifyBuiltin),
		"jobs": doc.Builtin("jobs", `jobs(all=False, pipeline_name=None)

Returns the job records, the oldest first: only the active ones
(Initializing, Running) unless all=True.`, e.jobsBuiltin),
		"job": doc.Builtin("job", "job(jobid)\n\nReturns a job's record; jobid may be partial (it must match exactly one job).", e.jobBuiltin),
		"wait": doc.Builtin("wait", `wait(jobid, timeout=600, on_status=None)

Waits until a job ends and returns its record; on_status(record) is
called at each change of status. Fails when timeout (seconds) passes.`, e.waitBuiltin),
		"small_output": doc.Builtin("small_output", `small_output(jobid)

Returns the copy of a completed job's output that its record keeps when
the output is small (api.SmallOutput: at most 100 rows and 4 KiB), as a
dict: rows (a list of dicts, as output(jobid).rows() gives them) and
text (the table print(output(jobid)) prints). None when the job has no
such copy (a larger output, one purged, a job not completed): output()
reads the stored Parquet (the data build).`, e.smallOutputBuiltin),
		"evict": doc.Builtin("evict", "evict(jobid)\n\nStops a running job on its worker (partial ids too) and returns its record.", e.evictBuiltin),
		"purge_outputs": doc.Builtin("purge_outputs", "purge_outputs()\n\nDeletes the outputs of every finished job; returns how many.",
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) { return c.PurgeOutputs(ctx) })),
		"watch_traces": doc.Builtin("watch_traces", `watch_traces(fn, timeout=None)

Calls fn(trace) for every step trace of every job on every worker, until
Ctrl-C (or timeout seconds). A trace has jobid, pod_id, pipeline, time,
block, step, tag, status, rows, columns, duration_ms, message.`, e.watchTraces),
		"watch_logs": doc.Builtin("watch_logs", `watch_logs(fn, timeout=None)

Calls fn(line) for every line every pod logs, until Ctrl-C (or timeout
seconds). A line has time, pod_type, pod_id, message.`, e.watchLogs),
		"watch_changes": doc.Builtin("watch_changes", `watch_changes(fn, timeout=None)

Calls fn(change) for every change of a record of the tenant (artifacts,
datasets, objects, pipelines, jobs, ...; not the pods' heartbeats), until
Ctrl-C (or timeout seconds). A change has time, bucket, key, operation
(put, delete or purge) and revision.`, e.watchChanges),
	}
}

// pipelineArgs are the arguments that name a pipeline and its placement.
type pipelineArgs struct {
	name, version, file, site, lfilter, rfilter optString
	// maxWait is how long the run may wait in the scheduler's queue for
	// a worker with capacity (0: the scheduler's default).
	maxWait seconds
}

func (a *pipelineArgs) unpack(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, more ...any) error {
	pairs := append([]any{"name?", &a.name, "version?", &a.version, "file?", &a.file,
		"site?", &a.site, "lfilter?", &a.lfilter, "rfilter?", &a.rfilter, "max_wait?", &a.maxWait}, more...)
	return starlark.UnpackArgs(b.Name(), args, kwargs, pairs...)
}

// request resolves the pipeline to run: a stored one or a local file.
func (a *pipelineArgs) request(ctx context.Context, thread *starlark.Thread, c *client.Client) (api.RunRequest, error) {
	switch {
	case a.name != "" && a.file != "":
		return api.RunRequest{}, fmt.Errorf("give name or file, not both")
	case a.file != "":
		data, err := os.ReadFile(host.From(thread).Path(string(a.file)))
		if err != nil {
			return api.RunRequest{}, trimPathError(err)
		}
		p, err := client.LoadPipeline(data, string(a.file))
		if err != nil {
			return api.RunRequest{}, fmt.Errorf("%s: %v", a.file, err)
		}
		return api.RunRequest{Pipeline: p.Name, Version: p.Version, Steps: p.Data.Sequence, Sources: p.Sources, Limits: p.Limits}, nil
	case a.name != "":
		p, err := c.Pipeline(ctx, string(a.name), string(a.version))
		if err != nil {
			return api.RunRequest{}, err
		}
		return api.RunRequest{Pipeline: p.Name, Version: p.Version, Steps: p.Data.Sequence, Sources: p.Sources, Limits: p.Limits}, nil
	}
	return api.RunRequest{}, fmt.Errorf("give the name of a pipeline or a file")
}

func (a *pipelineArgs) placement() client.Placement {
	return client.Placement{Site: string(a.site), LFilter: string(a.lfilter), RFilter: string(a.rfilter),
		MaxWait: time.Duration(float64(a.maxWait) * float64(time.Second))}
}

func (e *Env) runBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a pipelineArgs
	var full bool
	if err := a.unpack(b, args, kwargs, "full?", &full); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		req, err := a.request(ctx, thread, c)
		if err != nil {
			return nil, err
		}
		resp, err := c.Run(ctx, req, a.placement())
		if err != nil {
			return nil, err
		}
		if full {
			return resp, nil
		}
		return resp.JobID, nil
	})
}

func (e *Env) runBotBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var tag string
	var params *starlark.Dict
	var site, lfilter, rfilter optString
	var full bool
	var maxWait seconds
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "tag", &tag, "params?", &params, "site?", &site, "lfilter?", &lfilter, "rfilter?", &rfilter, "full?", &full, "max_wait?", &maxWait); err != nil {
		return nil, err
	}
	m := map[string]string{}
	var keys []string
	if params != nil {
		for _, kv := range params.Items() {
			k, ok := starlark.AsString(kv[0])
			if !ok {
				return nil, fmt.Errorf("%s: params: key %s is not a string", b.Name(), kv[0])
			}
			v, ok := starlark.AsString(kv[1])
			if !ok {
				v = kv[1].String()
			}
			if kv[1] == starlark.None {
				continue
			}
			keys = append(keys, k)
			m[k] = v
		}
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		resp, err := startBot(ctx, c, tag, keys, m, client.Placement{Site: string(site), LFilter: string(lfilter), RFilter: string(rfilter),
			MaxWait: time.Duration(float64(maxWait) * float64(time.Second))})
		if err != nil {
			return nil, err
		}
		if full {
			return resp, nil
		}
		return resp.JobID, nil
	})
}

// startBot starts a job of one bot, its parameters the pairs of params
// whose keys are in keys, on a worker placed by pl.
func startBot(ctx context.Context, c *client.Client, tag string, keys []string, params map[string]string, pl client.Placement) (api.StartResponse, error) {
	req := api.RunRequest{Pipeline: strings.TrimLeft(tag, "@*#"), Steps: []api.PipelineStep{{Tag: tag, Query: botquery.Format(keys, params)}}}
	return c.Run(ctx, req, pl)
}

func (e *Env) verifyBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a pipelineArgs
	if err := a.unpack(b, args, kwargs); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		req, err := a.request(ctx, thread, c)
		if err != nil {
			return nil, err
		}
		resp, err := c.Verify(ctx, req, a.placement())
		if err != nil {
			return nil, err
		}
		if !resp.OK {
			return nil, fmt.Errorf("%s", resp.Error)
		}
		return resp.Steps, nil
	})
}

// jobValue is a job's record as a dict, with now (the time it was read,
// for the Age column).
func jobValue(j api.Job) (starlark.Value, error) {
	j.SmallOutput = nil // the output's copy is small_output's
	return dictOf(j, nil, []starlark.Tuple{{starlark.String("now"), starlark.String(api.Timestamp(time.Now()))}})
}

func (e *Env) jobsBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var all bool
	var pipelineName optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "all?", &all, "pipeline_name?", &pipelineName); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		js, err := c.Jobs(ctx)
		if err != nil {
			return nil, err
		}
		var out []starlark.Value
		for _, j := range js {
			if (!all && !api.JobActive(j.Status)) || (pipelineName != "" && j.Pipeline != string(pipelineName)) {
				continue
			}
			v, err := jobValue(j)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return starlark.NewList(out), nil
	})
}

func (e *Env) jobBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var id string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "jobid", &id); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		j, err := c.Job(ctx, id)
		if err != nil {
			return nil, err
		}
		return jobValue(j)
	})
}

func (e *Env) waitBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var id string
	timeout := seconds(600)
	var onStatus starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "jobid", &id, "timeout?", &timeout, "on_status?", &onStatus); err != nil {
		return nil, err
	}
	if onStatus != starlark.None {
		if _, ok := onStatus.(starlark.Callable); !ok {
			return nil, fmt.Errorf("%s: on_status must be a function, not %s", b.Name(), onStatus.Type())
		}
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		j, err := c.Job(ctx, id)
		if err != nil {
			return nil, err
		}
		var cbErr error
		j, err = c.Wait(ctx, j.JobID, time.Duration(float64(timeout)*float64(time.Second)), func(j api.Job) {
			if onStatus == starlark.None || cbErr != nil {
				return
			}
			v, err := jobValue(j)
			if err == nil {
				_, err = starlark.Call(thread, onStatus, starlark.Tuple{v}, nil)
			}
			cbErr = err
		})
		if cbErr != nil {
			return nil, cbErr
		}
		if err != nil {
			return nil, err
		}
		return jobValue(j)
	})
}

func (e *Env) evictBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var id string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "jobid", &id); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		j, err := c.Evict(ctx, id)
		if err != nil {
			return nil, err
		}
		return jobValue(j)
	})
}

func (e *Env) watchTraces(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return e.watch(thread, b, args, kwargs, func(ctx context.Context, c *client.Client, emit func(any)) error {
		return c.WatchTraces(ctx, func(t api.Trace) { emit(t) })
	})
}

func (e *Env) watchLogs(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return e.watch(thread, b, args, kwargs, func(ctx context.Context, c *client.Client, emit func(any)) error {
		return c.WatchLogs(ctx, func(l api.LogLine) { emit(l) })
	})
}

func (e *Env) watchChanges(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return e.watch(thread, b, args, kwargs, func(ctx context.Context, c *client.Client, emit func(any)) error {
		return c.WatchChanges(ctx, func(ch api.Change) { emit(ch) })
	})
}

// timeoutContext is the thread's context, ended after timeout seconds
// unless timeout is None.
func timeoutContext(thread *starlark.Thread, b *starlark.Builtin, timeout starlark.Value) (context.Context, context.CancelFunc, error) {
	ctx := host.Context(thread)
	if timeout == starlark.None {
		return ctx, func() {}, nil
	}
	secs, ok := starlark.AsFloat(timeout)
	if !ok {
		return nil, nil, fmt.Errorf("%s: timeout must be a number of seconds, not %s", b.Name(), timeout.Type())
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(secs*float64(time.Second)))
	return ctx, cancel, nil
}

// watch is a watch_* builtin: watch(fn, timeout=None) calls fn with each
// thing run emits, until Ctrl-C, timeout seconds, or an error of fn.
func (e *Env) watch(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, run func(ctx context.Context, c *client.Client, emit func(any)) error) (starlark.Value, error) {
	var fn starlark.Callable
	var timeout starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn, "timeout?", &timeout); err != nil {
		return nil, err
	}
	ctx, cancel, err := timeoutContext(thread, b, timeout)
	if err != nil {
		return nil, err
	}
	defer cancel()
	c, err := e.connect(b)
	if err != nil {
		return nil, err
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var cbErr error
	err = run(wctx, c, func(x any) {
		if cbErr != nil {
			return
		}
		v, err := starvalue.ToStarlark(x)
		if err == nil {
			_, err = starlark.Call(thread, fn, starlark.Tuple{v}, nil)
		}
		if err != nil {
			cbErr = err
			stop()
		}
	})
	if cbErr != nil {
		return nil, cbErr
	}
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return starlark.None, nil
}
