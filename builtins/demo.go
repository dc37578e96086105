package builtins

import (
	"context"
	"fmt"
	"strings"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// demoModule backs a tenant's artifacts up and compares backups.
func (e *Env) demoModule() starlark.Value {
	kinds := make([]any, len(client.BackupKinds))
	for i, k := range client.BackupKinds {
		kinds[i] = starvalue.Map{{Key: "code", Value: k.Code}, {Key: "dir", Value: k.Dir}, {Key: "title", Value: k.Title}}
	}
	kindsValue, err := starvalue.ToStarlark(kinds)
	if err != nil {
		panic(err)
	}
	return doc.Module("demo", "Backups of a tenant's artifacts, their comparison, and the setup of a tenant from a directory.", starlark.StringDict{
		"KINDS": kindsValue,
		"setup": doc.Builtin("demo.setup", `setup(dir, ip, port=7443, protocol="https", pipelines=None, blueprints=None, verify_only=False)

Pushes a setup directory (dir: settings.json and a folder per kind, as
demo.backup writes them) into the tenant at ip: the current network
configuration when its servers are at that address, else the one
project whose servers are (ip may also name a project, or a network
configuration file). The webhook endpoint of settings.json is configured
on port and protocol; pipelines and blueprints (lists of names) limit
those set up. Everything is checked before anything changes; with
verify_only=True nothing changes. Returns a dict: target (what ip
resolved to), rows (kind, name, status, detail) and warnings.`, e.demoSetup),
		"backup": doc.Builtin("demo.backup", `backup(to_dir, yaml=False)

Writes the tenant's dashboards, dashboard groups, published pipelines,
blueprints, synthetic profiles and the stacks they use, endpoints,
mappings (each deployment's pipelines and the streams they read and
write) and persistent streams (their definitions) into to_dir (new, or empty),
one file per artifact under a folder per kind, as JSON (YAML with
yaml=True), with backup.json saying what it holds. Nothing is left in
to_dir when it fails. Returns the counts: dicts of kind, dir, count.`, e.demoBackup),
		"diff": doc.Builtin("demo.diff", `diff(first, second, opts=None, details=False, side=False, width=60)

Compares two backups kind by kind and name by name (opts: a list of
kind codes, d dg pl bp syn st ep map ps, or folder names, to compare
only those). The documents are
compared, not their text, and saved_time is left out. Returns one dict
per artifact: dir, name, status (Identical, Only In First, Only In
Second, Differ) and, for those that differ, with details a unified diff,
or with side a side-by-side one (columns width wide), under "diff".`, e.demoDiff),
	})
}

func (e *Env) demoBackup(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dir string
	var asYAML bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "to_dir", &dir, "yaml?", &asYAML); err != nil {
		return nil, err
	}
	dir = host.From(thread).Path(dir)
	if err := client.BackupCheckDestination(dir); err != nil {
		return nil, fail(b.Name(), err) // before reaching the fabric
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		r, err := artifactRepo(ctx, c)
		if err != nil {
			return nil, err
		}
		counts, err := client.BackupWrite(ctx, &client.BackupSource{Repo: r, Data: c.Data, JS: c.JetStream()}, dir, asYAML)
		if err != nil {
			return nil, err
		}
		rows := make([]any, len(counts))
		for i, n := range counts {
			rows[i] = starvalue.Map{{Key: "kind", Value: n.Kind}, {Key: "dir", Value: n.Dir}, {Key: "count", Value: n.Count}}
		}
		return rows, nil
	})
}

func (e *Env) demoDiff(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var first, second string
	var opts starlark.Value = starlark.None
	var details, side bool
	width := 60
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "first", &first, "second", &second, "opts?", &opts,
		"details?", &details, "side?", &side, "width?", &width); err != nil {
		return nil, err
	}
	var codes []string
	switch o := opts.(type) {
	case starlark.NoneType:
	case starlark.String:
		for _, c := range strings.Split(string(o), ",") {
			if c = strings.TrimSpace(c); c != "" {
				codes = append(codes, c)
			}
		}
	default:
		it := starlark.Iterate(opts)
		if it == nil {
			return nil, fail(b.Name(), fmt.Errorf("opts: want a list of kind codes, got %s", opts.Type()))
		}
		defer it.Done()
		var x starlark.Value
		for it.Next(&x) {
			s, ok := starlark.AsString(x)
			if !ok {
				return nil, fail(b.Name(), fmt.Errorf("opts: want kind codes (strings), got %s", x.Type()))
			}
			codes = append(codes, s)
		}
	}
	width = max(width, 20)
	h := host.From(thread)
	entries, err := client.BackupDiff(h.Path(first), h.Path(second), codes)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	rows := make([]any, len(entries))
	for i, en := range entries {
		m := starvalue.Map{{Key: "dir", Value: en.Dir}, {Key: "name", Value: en.Name}, {Key: "status", Value: en.Status}}
		if en.Status == client.BackupDiffer && (details || side) {
			text := en.Unified()
			if side {
				text = en.Side(width)
			}
			m = append(m, starvalue.KV{Key: "diff", Value: text})
		}
		rows[i] = m
	}
	return starvalue.ToStarlark(rows)
}
