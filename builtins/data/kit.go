package data

import (
	"context"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/client"
	"go.starlark.net/starlark"
)

// env is the shell's environment as the data modules use it: the lean
// build's, whose helpers they share.
type env struct{ *builtins.Env }

// builtinFunc is the Go signature of a Starlark builtin.
type builtinFunc = builtins.Func

// optString unpacks an optional string argument that may be None.
type optString = builtins.OptString

func (e env) call(thread *starlark.Thread, b *starlark.Builtin, fn func(ctx context.Context, c *client.Client) (any, error)) (starlark.Value, error) {
	return e.Call(thread, b, fn)
}

func (e env) listCall(list func(ctx context.Context, c *client.Client) (any, error)) builtinFunc {
	return e.ListCall(list)
}

func (e env) nameCall(do func(ctx context.Context, c *client.Client, name string) (any, error)) builtinFunc {
	return e.NameCall(do)
}

func (e env) connect(b *starlark.Builtin) (*client.Client, error) { return e.Connect(b) }

func fail(name string, err error) error { return builtins.Fail(name, err) }

func dictOf(v any, front, back []starlark.Tuple) (*starlark.Dict, error) {
	return builtins.DictOf(v, front, back)
}

func trimPathError(err error) error { return builtins.TrimPathError(err) }

var (
	withProgress = builtins.WithProgress
	httpGet      = builtins.HTTPGet
	startBot     = builtins.StartBot
)

var (
	timeoutContext = builtins.TimeoutContext
	bounded        = builtins.Bounded
)
