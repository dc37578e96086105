package data

import (
	"context"
	"github.com/fabricops/fabric/builtins"
	"io"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// tabler returns a table kept in the fabric by its key, lazily.
type tabler func(ctx context.Context, c *client.Client, key string) (*lazy.Table, error)

// lazyCall makes a builtin of one argument, param, that returns the table
// of the key as a lazy frame.
func (e env) lazyCall(param string, table tabler) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, param, &key); err != nil {
			return nil, err
		}
		return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
			t, err := table(ctx, c, key)
			if err != nil {
				return nil, err
			}
			return NewLazyFrame(ctx, t), nil
		})
	}
}

// rawInput is an input whose stored bytes can be copied as they are.
type rawInput interface {
	Format() frame.Format
	Raw(ctx context.Context) (io.ReadCloser, error)
}

// exportTableCall makes a builtin (param, path, format="auto") that writes
// the table of the key to a local file, atomically, and returns the
// number of rows written. When the file's format is the one the table is
// stored in, the stored bytes are copied as they are (nothing decoded or
// encoded again); otherwise its batches are streamed into the file.
func (e env) exportTableCall(param string, table tabler) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key, to string
		format := "auto"
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, param, &key, "path", &to, "format?", &format); err != nil {
			return nil, err
		}
		f, err := frame.ParseFormat(format)
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
			t, err := table(ctx, c, key)
			if err != nil {
				return nil, err
			}
			p := host.From(thread).Path(to)
			format, comp, err := frame.Detect(p, f)
			if err != nil {
				return nil, err
			}
			if raw, ok := t.Input().(rawInput); ok && t.Plain() && comp == frame.NoCompression && raw.Format() == format {
				if n, err := t.NumRows(ctx); err == nil && n >= 0 {
					r, err := raw.Raw(ctx)
					if err != nil {
						return nil, err
					}
					defer r.Close()
					return n, safefile.WriteFrom(p, r)
				}
			}
			src, err := t.Open(ctx)
			if err != nil {
				return nil, err
			}
			defer src.Close()
			stats, err := exportSource(thread, src, to, f)
			return stats.Rows, err
		})
	}
}
