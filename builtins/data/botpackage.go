package data

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"github.com/fabricops/fabric/fabric/lib/starframe"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// botPackageMembers are the members of bot_package that run a package's
// bots: its tests see the frames the bots see on a worker (fabric/lib/starframe).
func (e env) botPackageMembers() starlark.StringDict {
	return starlark.StringDict{
		"build": doc.Builtin("bot_package.build", `build(dir)

Builds the package in dir: loads it as a worker would, runs its tests (as
ut), and writes its dist archive, dir/dist/NAME-VERSION.tar.gz. When the
catalog holds that version, the dist is recorded with it (list's Has
Dist). Returns file, name, version, tests and recorded.`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var dir string
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir); err != nil {
				return nil, err
			}
			return e.buildBotPackage(thread, b, host.From(thread).Path(dir))
		}),
		"ut": doc.Builtin("bot_package.ut", `ut(dir)

Runs the tests of the package in dir: each function test_* of its
test_*.star modules, in a fresh thread with the bots' fences and no
network. Test modules load the package's modules and see assert (eq, ne,
true, contains, fails) and fixture(name), the rows of fixtures/NAME.json
as a frame (what a bot gets), or fixture(rows), a frame of a list of dicts. Returns one dict a test: file, test, ok and
error (one line with file:line:col, "" when it passed).`, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var dir string
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dir", &dir); err != nil {
				return nil, err
			}
			res, err := botpkg.RunTests(host.Context(thread), os.DirFS(host.From(thread).Path(dir)), botpkg.Limits{}, botFixtures)
			if err != nil {
				return nil, builtins.Fail(b.Name(), err)
			}
			rows := make([]any, len(res))
			for i, r := range res {
				msg := ""
				if r.Err != nil {
					msg = r.Err.Error()
				}
				rows[i] = starvalue.Map{{Key: "file", Value: r.File}, {Key: "test", Value: r.Name}, {Key: "ok", Value: r.Err == nil}, {Key: "error", Value: msg}}
			}
			return starvalue.ToStarlark(rows)
		}),
	}
}

// buildBotPackage checks and tests the package in dir, writes its dist
// and records it when the catalog holds that version.
func (e env) buildBotPackage(thread *starlark.Thread, b *starlark.Builtin, dir string) (starlark.Value, error) {
	ctx := host.Context(thread)
	fsys := os.DirFS(dir)
	p, err := botpkg.Load(ctx, fsys, botpkg.Limits{})
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	res, err := botpkg.RunTests(ctx, fsys, botpkg.Limits{}, botFixtures)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	for _, r := range res {
		if r.Err != nil {
			return nil, builtins.Fail(b.Name(), fmt.Errorf("a test fails (bot-package ut shows them all): %s: %v", r.Name, r.Err))
		}
	}
	data, err := botpkg.Pack(fsys, botpkg.Limits{})
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	x := p.Manifest.Extension
	file := filepath.Join(dir, "dist", x.DefaultName+"-"+x.Version+".tar.gz")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	if err := safefile.WriteFrom(file, bytes.NewReader(data)); err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	recorded := false
	_, err = e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		all, err := c.ListBotPackages(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range all {
			if r.Name == x.DefaultName && r.Version == x.Version {
				recorded = true
				return c.SetBotPackageDist(ctx, r.Name, r.Version, data)
			}
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	return starvalue.ToStarlark(starvalue.Map{{Key: "file", Value: file}, {Key: "name", Value: x.DefaultName}, {Key: "version", Value: x.Version},
		{Key: "tests", Value: len(res)}, {Key: "recorded", Value: recorded}})
}

// botFrames is the kit of the frames bots get in their tests: as on a
// worker, reads bounded by the call's context and no file method.
var botFrames = &starframe.Kit{Context: botpkg.Context}

// botFixtures makes a test's fixture rows into the frame a bot gets.
func botFixtures(thread *starlark.Thread, rows starlark.Value) (starlark.Value, error) {
	f, err := starframe.FromValue(botpkg.Context(thread), rows, 0)
	if err != nil {
		return nil, err
	}
	return botFrames.New(f), nil
}
