package builtins

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/release"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// fabricUpgradeMembers are the fabric module's members of a rolling
// upgrade: the fabric's processes, maintenance mode, and the replacement
// of processes by another build.
func (e *Env) fabricUpgradeMembers() starlark.StringDict {
	return starlark.StringDict{
		"build": doc.Builtin("fabric.build", `build(dir, stage=False)

Reads and verifies a build directory (as make dist writes it: client,
client-data, fabricd, VERSION, SHA256SUMS): every binary's checksum.
With stage, copies it into the local fabric's builds directory
(FABRIC_HOME/local/builds), where the local fabric looks up the build an
upgrade names. Returns name (the directory's name, which hosts look up in
their upgrades directory), version and dir.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var dir string
			stage := false
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir, "stage?", &stage); err != nil {
				return nil, err
			}
			var bd *release.Build
			var err error
			if stage {
				bd, err = client.StageLocalBuild(e.Home, host.From(thread).Path(dir))
			} else if bd, err = release.Open(host.From(thread).Path(dir)); err == nil {
				err = bd.Verify()
			}
			if err != nil {
				return nil, fail(b.Name(), err)
			}
			return starvalue.ToStarlark(starvalue.Map{{Key: "name", Value: filepath.Base(bd.Dir)}, {Key: "version", Value: bd.Version}, {Key: "dir", Value: bd.Dir}})
		}),
		"processes": doc.Builtin("fabric.processes", `processes()

Returns the fabric's processes (a fabricd on a host), in the order an
upgrade takes them (the platform's first, then workers, then agents):
hostname, proc_id and pods (each pod's info).`, e.listCall(func(ctx context.Context, c *client.Client) (any, error) {
			return c.UpgradeProcesses(ctx)
		})),
		"maintenance": doc.Builtin("fabric.maintenance", `maintenance(pod_id, on=True)

Puts a pod in maintenance mode (it takes no new jobs; a worker finishes
its jobs and hands its service instances back to the controller) or takes
it out. Returns pod_id, pod_type, maintenance and active_jobs.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var id string
			on := true
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pod_id", &id, "on?", &on); err != nil {
				return nil, err
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return c.Maintenance(ctx, id, on) })
		}),
		"upgrade": doc.Builtin("fabric.upgrade", `upgrade(pod_ids, build, drain=300, timeout=600)

Asks the processes of the pods pod_ids (one pod of each process) to run
the build named build (a directory of that name in each host's upgrades
directory) in their place: their pods go into maintenance, their jobs
finish (at most drain seconds), and the same pods come back on the new
build. Waits at most timeout seconds for every pod of those processes to
answer again, out of maintenance and healthy; returns them.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ids *starlark.List
			var build string
			drain, timeout := 300.0, 600.0
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pod_ids", &ids, "build", &build, "drain?", &drain, "timeout?", &timeout); err != nil {
				return nil, err
			}
			var podIDs []string
			for i := 0; i < ids.Len(); i++ {
				s, ok := starlark.AsString(ids.Index(i))
				if !ok {
					return nil, fmt.Errorf("%s: pod_ids are strings", b.Name())
				}
				podIDs = append(podIDs, s)
			}
			if drain <= 0 || timeout <= 0 {
				return nil, fmt.Errorf("%s: drain and timeout are seconds, more than 0", b.Name())
			}
			req := api.UpgradeRequest{Build: build, TimeoutSeconds: drain}
			// The local fabric is upgraded by its owner only: the token
			// of its home goes with the request, to it alone.
			if cfg, err := client.LoadConfig(client.ConfigPath(e.Home)); err == nil && cfg.Local {
				req.Token = client.LocalUpgradeToken(e.Home)
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
				return c.UpgradeAll(ctx, podIDs, req, secondsOf(timeout))
			})
		}),
		"scheduler_leader": doc.Builtin("fabric.scheduler_leader", `scheduler_leader()

Returns the pod id of the leading scheduler; fails when none leads.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
				return nil, err
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return c.SchedulerLeader(ctx) })
		}),
	}
}

func secondsOf(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
