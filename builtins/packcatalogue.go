package builtins

import (
	"context"
	"fmt"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

func (e *Env) packCleanupSystem(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var test bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "test?", &test); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.CleanupSystemPacks(ctx, test)
	})
}

func (e *Env) packInstallCatalogue(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dir string
	var all, replace bool
	var inputs starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir, "all?", &all, "replace?", &replace, "inputs?", &inputs); err != nil {
		return nil, err
	}
	m, err := packVars(inputs, "inputs")
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	byPack := map[string]map[string]any{}
	for name, v := range m {
		vars, ok := v.(map[string]any)
		if !ok {
			return nil, fail(b.Name(), fmt.Errorf("inputs: the variables of pack %s are not a dict", name))
		}
		byPack[name] = vars
	}
	path := host.From(thread).Path(dir)
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.InstallCatalogue(ctx, path, all, replace, byPack)
	})
}
