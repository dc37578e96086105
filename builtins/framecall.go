//go:build !lean

package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"go.starlark.net/starlark"
)

// opener opens a table kept in the fabric (a dataset, a bounded dataset's
// data, a job's output) by its key, for reading; the caller closes it.
type opener func(ctx context.Context, c *client.Client, key string) (frame.Source, error)

// frameCall makes a builtin of one argument, param, that returns the table
// open opens, read whole, as a frame.
func (e *Env) frameCall(param string, open opener) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, param, &key); err != nil {
			return nil, err
		}
		return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
			src, err := open(ctx, c, key)
			if err != nil {
				return nil, err
			}
			defer src.Close()
			f, err := frame.ReadFrom(src)
			if err != nil {
				return nil, err
			}
			return NewFrameValue(f), nil
		})
	}
}

// exportCall makes a builtin (param, path, format="auto") that streams the
// table open opens into a local file (see exportSource) and returns the
// number of rows written.
func (e *Env) exportCall(param string, open opener) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key, to string
		format := "auto"
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, param, &key, "path", &to, "format?", &format); err != nil {
			return nil, err
		}
		f, err := frame.ParseFormat(format)
		if err != nil {
			return nil, fail(b.Name(), err)
		}
		return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
			src, err := open(ctx, c, key)
			if err != nil {
				return nil, err
			}
			defer src.Close()
			stats, err := exportSource(thread, src, to, f)
			return stats.Rows, err
		})
	}
}
