package builtins

import (
	"context"
	"fmt"
	"strings"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// bundleModule is the bundle module: pipelines, blueprints and dashboards
// deployed together from one .tar.gz archive (SPEC 4.7).
func (e *Env) bundleModule() starlark.Value {
	return doc.Module("bundle", `Bundles: a .tar.gz archive of pipelines/, blueprints/ (or
deployments/) and dashboards/ folders, deployed together in dependency
order, or compared with what the fabric has.`, starlark.StringDict{
		"deploy": doc.Builtin("bundle.deploy", `deploy(file, types=None, compare=False)

Deploys the bundle file (a .tar.gz archive, read as a stream) and returns
a row per artifact: type (pipeline, blueprint or dashboard), name, change
(new, changed or unchanged: against what the fabric had), file (in the
bundle), pipeline_version for pipelines and blueprint_id for blueprints.

The archive holds the folders pipelines/ (as pipeline.add reads them),
blueprints/ or deployments/ (deployments, YAML or JSON) and dashboards/
(YAML or JSON), at its top or inside one top-level folder. types is a
list of "d", "b" and "p" (or a comma-separated string, or the full
names); None: all. Every document is parsed and checked before anything
is written; pipelines deploy first (a blueprint may run them), then
blueprints (stored disabled), then dashboards, and last the blueprints
that say so are enabled. Unchanged artifacts are left as they are. If a
write fails, what the call wrote is undone. compare=True writes nothing
and returns the same rows.`, e.bundleDeploy),
	})
}

func (e *Env) bundleDeploy(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var file string
	var types starlark.Value = starlark.None
	var compare bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "file", &file, "types?", &types, "compare?", &compare); err != nil {
		return nil, err
	}
	ts, err := bundleTypes(types)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	bundle, err := client.OpenBundle(host.From(thread).Path(file), file)
	if err != nil {
		return nil, fail(b.Name(), trimPathError(err))
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		if compare {
			return c.CompareBundle(ctx, bundle, ts)
		}
		return c.DeployBundle(ctx, bundle, client.BundleOptions{Types: ts})
	})
}

// bundleTypeNames are the names of a bundle's artifact types in the
// types argument: a letter or the type's name.
var bundleTypeNames = map[string]string{
	"p": client.BundlePipeline, client.BundlePipeline: client.BundlePipeline,
	"b": client.BundleBlueprint, client.BundleBlueprint: client.BundleBlueprint,
	"d": client.BundleDashboard, client.BundleDashboard: client.BundleDashboard,
}

// bundleTypes reads the types argument of bundle.deploy: None (all), a
// comma-separated string or a list of strings, each a letter (d, b, p)
// or a type's name. It returns the types in deployment order.
func bundleTypes(v starlark.Value) ([]string, error) {
	var names []string
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.String:
		names = strings.Split(string(x), ",")
	case starlark.Iterable:
		it := x.Iterate()
		defer it.Done()
		var el starlark.Value
		for it.Next(&el) {
			s, ok := starlark.AsString(el)
			if !ok {
				return nil, fmt.Errorf("types: got a %s, want strings", el.Type())
			}
			names = append(names, s)
		}
	default:
		return nil, fmt.Errorf("types: got %s, want a list of d, b and p", v.Type())
	}
	want := map[string]bool{}
	for _, n := range names {
		t, ok := bundleTypeNames[strings.TrimSpace(n)]
		if !ok {
			return nil, fmt.Errorf("types: %q is not d (dashboard), b (blueprint) or p (pipeline)", strings.TrimSpace(n))
		}
		want[t] = true
	}
	var out []string
	for _, t := range client.BundleTypes {
		if want[t] {
			out = append(out, t)
		}
	}
	return out, nil
}
