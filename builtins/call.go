package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// builtinFunc is the Go signature of a Starlark builtin.
type builtinFunc = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)

// listCall makes a builtin of no arguments that calls list on the fabric
// and returns its result (see result).
func (e *Env) listCall(list func(ctx context.Context, c *client.Client) (any, error)) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
			return nil, err
		}
		return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return list(ctx, c) })
	}
}

// nameCall makes a builtin of one argument, name, that calls do on the
// fabric and returns its result (see result).
func (e *Env) nameCall(do func(ctx context.Context, c *client.Client, name string) (any, error)) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var name string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
			return nil, err
		}
		return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) { return do(ctx, c, name) })
	}
}

// call runs fn with the fabric's client; errors are named after b. A nil
// result is None, a Starlark value is returned as is, and anything else
// is converted with starvalue.ToStarlark.
//
// fn gets the thread's context: Ctrl-C in the REPL or in a running
// command cancels the fabric call in flight.
func (e *Env) call(thread *starlark.Thread, b *starlark.Builtin, fn func(ctx context.Context, c *client.Client) (any, error)) (starlark.Value, error) {
	c, err := e.connect(b)
	if err != nil {
		return nil, err
	}
	res, err := fn(host.Context(thread), c)
	return result(b, res, err)
}

// result makes a builtin's result of what a fabric call returned: its
// error named after b; nil as None, a Starlark value as it is, anything
// else converted with starvalue.ToStarlark.
func result(b *starlark.Builtin, res any, err error) (starlark.Value, error) {
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	switch v := res.(type) {
	case nil:
		return starlark.None, nil
	case starlark.Value:
		return v, nil
	}
	return starvalue.ToStarlark(res)
}

// connect returns the fabric's client for b; a failure to connect is
// named after b. (Builtins that call the fabric go through call; those
// whose client methods name their errors already use connect.)
func (e *Env) connect(b *starlark.Builtin) (*client.Client, error) {
	c, err := e.Client()
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return c, nil
}
