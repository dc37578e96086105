package builtins

import (
	"context"
	"os"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// botPackageModule is the bot_package module: bot packages checked and
// tested locally (the catalog's operations follow).
func (e *Env) botPackageModule() starlark.Value {
	return doc.Module("bot_package", "Bot packages: bots.yml and Starlark modules, whose bots workers run as @namespace:bot.", starlark.StringDict{
		"add": doc.Builtin("bot_package.add", `add(path, overwrite=False)

Checks the package at path (a directory holding bots.yml, or its .tar.gz)
as a worker would and stores it in the catalog. A newer version of a
package replaces the one stored; the same or an older version needs
overwrite. Returns the package's record.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var path string
			var overwrite bool
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "overwrite?", &overwrite); err != nil {
				return nil, err
			}
			path = host.From(thread).Path(path)
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
				return c.AddBotPackage(ctx, path, overwrite)
			})
		}),
		"list": doc.Builtin("bot_package.list", "list()\n\nReturns the packages of the catalog, by name: name, namespace, version, description, publisher, bots, dist and saved_time.",
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) { return c.ListBotPackages(ctx) })),
		"get": doc.Builtin("bot_package.get", "get(name)\n\nReturns the bots.yml of a package, as added.",
			e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
				text, err := c.BotPackageManifest(ctx, name)
				return string(text), err
			})),
		"delete": doc.Builtin("bot_package.delete", `delete(name, version="")

Removes a package (only when it is at version, when given). Refused while
a pipeline or an enabled deployment calls its bots; the error names them.
Returns the record removed.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name, version string
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "version?", &version); err != nil {
				return nil, err
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
				return c.DeleteBotPackage(ctx, name, version)
			})
		}),
		"dialect": starlark.String(botpkg.DialectVersion),
		"add_source": doc.Builtin("bot_package.add_source", `add_source(name, package, config)

Stores the source name: a configuration (a dict) of the package's
config_template, which a pipeline step names with source = 'name'. Its
keys must be the template's, its $mandatory keys given; the values of its
$secure keys are sealed as secrets (bot-source.NAME.KEY) and the source
keeps a reference to them. A source of that name is replaced. Returns the
source, its secret values as references.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name, pkg string
			var config *starlark.Dict
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "package", &pkg, "config", &config); err != nil {
				return nil, err
			}
			v, err := starvalue.FromStarlark(config)
			if err != nil {
				return nil, fail(b.Name(), err)
			}
			cfg := map[string]any{}
			for _, kv := range v.(starvalue.Map) {
				cfg[kv.Key] = starvalue.Plain(kv.Value)
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
				return c.AddBotSource(ctx, api.BotSource{Name: name, Package: pkg, Config: cfg})
			})
		}),
		"delete_source": doc.Builtin("bot_package.delete_source", `delete_source(name)

Deletes the source name and the secrets add_source sealed for it (secrets
it only referred to stay). Returns its name and package.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
				return nil, err
			}
			return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
				src, err := c.DeleteBotSource(ctx, name)
				return map[string]any{"name": src.Name, "package": src.Package}, err
			})
		}),
		"sources": doc.Builtin("bot_package.sources", "sources()\n\nReturns the bot sources: name, package, config (by the template's labels, $secure values as ********) and saved_time.",
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) { return c.ListBotSources(ctx) })),
		"check": doc.Builtin("bot_package.check", `check(dir)

Loads the package in dir as a worker would: bots.yml checked field by
field, every module compiled, every bot of bots.yml defined. Returns the
package's namespace, name, version and bots; an error is one line naming
the field, or the file:line:col.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var dir string
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir); err != nil {
				return nil, err
			}
			p, err := botpkg.Load(host.Context(thread), os.DirFS(host.From(thread).Path(dir)), botpkg.Limits{})
			if err != nil {
				return nil, fail(b.Name(), err)
			}
			x := p.Manifest.Extension
			bots := make([]string, len(p.Manifest.Bots))
			for i, bot := range p.Manifest.Bots {
				bots[i] = p.Tag(bot.Name)
			}
			return result(b, starvalue.Map{{Key: "namespace", Value: x.Namespace}, {Key: "name", Value: x.DefaultName},
				{Key: "version", Value: x.Version}, {Key: "bots", Value: bots}}, nil)
		}),
	})
}
