//go:build !lean

package builtins

import (
	"context"
	"fmt"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/client/tables"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// datasetModule is the dataset module: tables stored in the tenant's
// object store with a record in KV (SPEC 2.6).
func (e *Env) datasetModule() starlark.Value {
	b := func(name, text string, fn builtinFunc) *starlark.Builtin {
		return doc.Builtin("dataset."+name, text, fn)
	}
	return doc.Module("dataset", "Datasets: tables in the tenant's object store, with records in KV.", starlark.StringDict{
		"list": b("list", "list()\n\nReturns the dataset records: name, format, datafile, mem_size_mb, num_rows,\nnum_columns, saved_time, dtypes.", e.listCall(datasetList)),
		"get": b("get", `get(name)

Returns a dataset as a lazy frame: its count and columns come from the
dataset's record; rows are read when a result is needed, only the
columns and row groups its filters and selects need.`, e.lazyCall("name", datasetTable)),
		"meta": b("meta", "meta(name)\n\nReturns a dataset's record.", e.nameCall(datasetMeta)),
		"add": b("add", `add(name, file=None, frame=None, folder="", local_format="auto", remote_format="parquet")

Stores a table as the dataset name and returns its record, with
created=True when it was new. The table is a local file or an
http/https URL (file=, streamed, never read whole into memory), or a
frame (frame=). local_format is auto (from the extension), csv, json,
jsonl, parquet or xlsx; compressed CSV (.gz, .bz2, .xz, .zst) is read as
such. remote_format is how it is stored: parquet or csv. An existing
dataset is replaced only once the new data is fully stored.`, e.datasetAdd),
		"export": b("export", `export(name, path, format="auto")

Writes a dataset to a local file (format from the extension, or csv,
json, jsonl, parquet, xlsx), streamed and atomically. Returns the number
of rows written.`, e.exportTableCall("name", datasetTable)),
		"dump": b("dump", `dump(name, format="csv")

Writes a dataset to stdout as csv, json or jsonl, streamed.`, e.datasetDump),
		"delete":      b("delete", "delete(name)\n\nDeletes a dataset: its record and its data.", e.nameCall(datasetDelete)),
		"bounded_add": b("bounded_add", "bounded_add(name, schema)\n\nCreates an empty bounded dataset whose data must satisfy the schema artifact.", e.boundedAdd),
		"bounded_import": b("bounded_import", `bounded_import(name, file, local_format="auto", publish=True)

Validates every row of a file against the bounded dataset's schema and
stores it: published at once, or kept as a draft with publish=False. A
row that does not fit fails the import, naming the row and the reason.`, e.boundedImport),
		"bounded_list":   b("bounded_list", "bounded_list()\n\nReturns the bounded dataset records.", e.listCall(boundedList)),
		"bounded_get":    b("bounded_get", "bounded_get(name)\n\nReturns a bounded dataset's published data as a frame.", e.lazyCall("name", boundedTable)),
		"bounded_export": b("bounded_export", "bounded_export(name, path, format=\"auto\")\n\nWrites a bounded dataset's data to a local file; returns the rows written.", e.exportTableCall("name", boundedTable)),
		"bounded_meta":   b("bounded_meta", "bounded_meta(name)\n\nReturns a bounded dataset's record.", e.nameCall(boundedMeta)),
		"bounded_delete": b("bounded_delete", "bounded_delete(name)\n\nDeletes a bounded dataset's drafts, then the bounded dataset.", e.nameCall(boundedDelete)),
	})
}

func (e *Env) datasetAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, folder string
	var file optString
	var fr starlark.Value = starlark.None
	local, remote := "auto", "parquet"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "file?", &file, "frame?", &fr,
		"folder?", &folder, "local_format?", &local, "remote_format?", &remote); err != nil {
		return nil, err
	}
	lf, err := frame.ParseFormat(local)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	if remote != "parquet" && remote != "csv" {
		return nil, fmt.Errorf("%s: remote_format must be csv or parquet, not %q", b.Name(), remote)
	}
	var src frame.Source
	if file != "" && fr != starlark.None {
		return nil, fmt.Errorf("%s: give file or frame, not both", b.Name())
	}
	switch fsrc, isFrame, err := sourceOf(host.Context(thread), fr); {
	case isFrame && err != nil:
		return nil, fail(b.Name(), err)
	case isFrame:
		src = fsrc
	case fr != starlark.None:
		return nil, fmt.Errorf("%s: frame must be a frame, not %s", b.Name(), fr.Type())
	case file == "":
		return nil, fmt.Errorf("%s: give file or frame", b.Name())
	default:
		if src, err = openSource(thread, string(file), lf); err != nil {
			return nil, fail(b.Name(), err)
		}
	}
	defer src.Close()
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		rec, created, err := tables.Of(c).AddDataset(ctx, name, folder, src, frame.Format(remote))
		if err != nil {
			return nil, err
		}
		return dictOf(rec, nil, []starlark.Tuple{{starlark.String("created"), starlark.Bool(created)}})
	})
}

func (e *Env) datasetDump(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	format := "csv"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "format?", &format); err != nil {
		return nil, err
	}
	f, err := frame.ParseFormat(format)
	if err != nil || !streamable(f) {
		return nil, fmt.Errorf("%s: format must be csv, json or jsonl to print, not %q (give a file for others)", b.Name(), format)
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		t, err := datasetTable(ctx, c, name)
		if err != nil {
			return nil, err
		}
		src, err := t.Open(ctx)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		_, err = writeSource(host.From(thread).Stdout, src, f, frame.NoCompression)
		return nil, err
	})
}

func datasetList(ctx context.Context, c *client.Client) (any, error) { return c.Datasets(ctx) }

func datasetMeta(ctx context.Context, c *client.Client, name string) (any, error) {
	return c.Dataset(ctx, name)
}

// datasetTable returns a dataset as a lazy table.
func datasetTable(ctx context.Context, c *client.Client, name string) (*lazy.Table, error) {
	t, _, err := tables.Of(c).DatasetTable(ctx, name)
	return t, err
}

func datasetDelete(ctx context.Context, c *client.Client, name string) (any, error) {
	return nil, c.DeleteDataset(ctx, name)
}
