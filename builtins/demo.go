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
	return doc.Module("demo", "Backups of a tenant's artifacts, and their comparison.", starlark.StringDict{
		"backup": doc.Builtin("demo.backup", `backup(to_dir, yaml=False)

Writes the tenant's dashboards, dashboard groups, published pipelines,
synthetic profiles and the stacks they use into to_dir (new, or empty),
one file per artifact under a folder per kind, as JSON (YAML with
yaml=True), with backup.json saying what it holds. Nothing is left in
to_dir when it fails. Returns the counts: dicts of kind, dir, count.`, e.demoBackup),
		"diff": doc.Builtin("demo.diff", `diff(first, second, opts=None, details=False, side=False, width=60)

Compares two backups kind by kind and name by name (opts: a list of
kind codes, d dg pl syn st, to compare only those). The documents are
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
		counts, err := client.BackupWrite(ctx, &client.BackupSource{Repo: r, Data: c.Data}, dir, asYAML)
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
