package builtins

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chzyer/readline"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// secretModule is the secret module: values sealed at rest, shown only
// on a terminal when asked. Both clients have it.
func (e *Env) secretModule() starlark.Value {
	open := func(ctx context.Context, c *client.Client) (*client.SecretStore, error) {
		st, err := c.Data.Store(ctx)
		if err != nil {
			return nil, err
		}
		return &client.SecretStore{Store: st}, nil
	}
	return doc.Module("secret", "Secrets: values sealed at rest with the tenant's key, never printed unless revealed on a terminal.", starlark.StringDict{
		"add": doc.Builtin("secret.add", `add(name, value=None, description="", overwrite=False)

Seals value as the secret name. Without value, the value is read from
standard input: asked without echo on a terminal, else all of it (one
trailing newline dropped). Returns the secret's name, description and
saved_time.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name, description string
			var val optString
			var overwrite bool
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "value?", &val, "description?", &description, "overwrite?", &overwrite); err != nil {
				return nil, err
			}
			value := []byte(val)
			if val == "" {
				var err error
				if value, err = readSecret(thread, name); err != nil {
					return nil, fail(b.Name(), err)
				}
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
				s, err := open(ctx, c)
				if err != nil {
					return nil, err
				}
				return s.Put(ctx, name, description, value, overwrite)
			})
		}),
		"get": doc.Builtin("secret.get", "get(name)\n\nReturns a secret's name, description and saved_time (never its value).",
			e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
				s, err := open(ctx, c)
				if err != nil {
					return nil, err
				}
				return s.Info(ctx, name)
			})),
		"reveal": doc.Builtin("secret.reveal", `reveal(name)

Returns a secret's value, only when standard output is a terminal (so
that no value lands in a file, a pipe or a log by accident).`,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var name string
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
					return nil, err
				}
				if !host.From(thread).StdoutTerminal {
					return nil, fmt.Errorf("%s: refused: standard output is not a terminal (a value is shown only on one)", b.Name())
				}
				return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
					s, err := open(ctx, c)
					if err != nil {
						return nil, err
					}
					v, err := s.Reveal(ctx, name)
					return starlark.String(v), err
				})
			}),
		"list": doc.Builtin("secret.list", "list()\n\nReturns the secrets' names, descriptions and saved_time (never their values).",
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) {
				s, err := open(ctx, c)
				if err != nil {
					return nil, err
				}
				return s.List(ctx)
			})),
		"delete": doc.Builtin("secret.delete", "delete(name)\n\nDeletes a secret.",
			e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
				s, err := open(ctx, c)
				if err != nil {
					return nil, err
				}
				return nil, s.Delete(ctx, name)
			})),
	})
}

// readSecret reads a secret's value from standard input: without echo
// on a terminal, else all of it, one trailing newline dropped.
func readSecret(thread *starlark.Thread, name string) ([]byte, error) {
	in := host.From(thread).Stdin
	if f, ok := in.(*os.File); ok && readline.IsTerminal(int(f.Fd())) {
		v, err := readline.Password(fmt.Sprintf("value of secret %s: ", name))
		if err != nil {
			return nil, fmt.Errorf("no value read: %v", err)
		}
		return v, nil
	}
	data, err := io.ReadAll(io.LimitReader(in, 1<<20+1))
	if err != nil {
		return nil, fmt.Errorf("reading the value from standard input: %v", err)
	}
	if len(data) > 1<<20 {
		return nil, fmt.Errorf("the value is over 1 MB")
	}
	return []byte(strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")), nil
}
