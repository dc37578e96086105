package builtins

import (
	"os"

	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// botPackageModule is the bot_package module: bot packages checked and
// tested locally (the catalog's operations follow).
func (e *Env) botPackageModule() starlark.Value {
	return doc.Module("bot_package", "Bot packages: bots.yml and Starlark modules, checked and tested locally.", starlark.StringDict{
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
		"ut": doc.Builtin("bot_package.ut", `ut(dir)

Runs the tests of the package in dir: each function test_* of its
test_*.star modules, in a fresh thread with the bots' fences and no
network. Test modules load the package's modules and see assert (eq, ne,
true, contains, fails) and fixture(name), the rows of
fixtures/NAME.json. Returns one dict a test: file, test, ok and error
(one line with file:line:col, "" when it passed).`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var dir string
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir); err != nil {
				return nil, err
			}
			res, err := botpkg.RunTests(host.Context(thread), os.DirFS(host.From(thread).Path(dir)), botpkg.Limits{})
			if err != nil {
				return nil, fail(b.Name(), err)
			}
			rows := make([]any, len(res))
			for i, r := range res {
				msg := ""
				if r.Err != nil {
					msg = r.Err.Error()
				}
				rows[i] = starvalue.Map{{Key: "file", Value: r.File}, {Key: "test", Value: r.Name}, {Key: "ok", Value: r.Err == nil}, {Key: "error", Value: msg}}
			}
			return result(b, rows, nil)
		}),
	})
}
