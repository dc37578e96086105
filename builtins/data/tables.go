package data

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/lib/engine"
	"os"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/client/tables"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// datasetMembers are the dataset module's members that read or write
// the data itself (the records are the lean build's).
func (e env) datasetMembers() starlark.StringDict {
	b := func(name, text string, fn builtinFunc) *starlark.Builtin {
		return doc.Builtin("dataset."+name, text, fn)
	}
	return starlark.StringDict{
		"get": b("get", `get(name)

Returns a dataset as a lazy frame: its count and columns come from the
dataset's record; rows are read when a result is needed, only the
columns and row groups its filters and selects need.`, e.lazyCall("name", datasetTable)),
		"add": b("add", `add(name, file=None, frame=None, folder="", local_format="auto", remote_format="parquet")

Stores a table as the dataset name and returns its record, with
created=True when it was new. The table is a local file or an
http/https URL (file=, streamed, never read whole into memory), or a
frame (frame=). local_format is auto (from the extension), csv, json,
jsonl, parquet, xlsx or xls (legacy binary Excel); compressed CSV (.gz,
.bz2, .xz, .zst) is read as
such. remote_format is how it is stored: parquet or csv. An existing
dataset is replaced only once the new data is fully stored.`, e.datasetAdd),
		"export": b("export", `export(name, path, format="auto")

Writes a dataset to a local file (format from the extension, or csv,
json, jsonl, parquet, xlsx), streamed and atomically. Returns the number
of rows written.`, e.exportTableCall("name", datasetTable)),
		"dump": b("dump", `dump(name, format="csv")

Writes a dataset to stdout as csv, json or jsonl, streamed.`, e.datasetDump),
		"bounded_import": b("bounded_import", `bounded_import(name, file, local_format="auto", publish=True)

Validates every row of a file against the bounded dataset's schema and
stores it: published at once, or kept as a draft with publish=False. A
row that does not fit fails the import, naming the row and the reason.`, e.boundedImport),
		"bounded_get":    b("bounded_get", "bounded_get(name)\n\nReturns a bounded dataset's published data as a frame.", e.lazyCall("name", boundedTable)),
		"bounded_export": b("bounded_export", "bounded_export(name, path, format=\"auto\")\n\nWrites a bounded dataset's data to a local file; returns the rows written.", e.exportTableCall("name", boundedTable)),
	}
}

// schemaMembers are the schema module's members that compile schemas.
func (e env) schemaMembers() starlark.StringDict {
	return starlark.StringDict{
		"add": doc.Builtin("schema.add", `add(name, file=None, schema=None, descr="", overwrite=False)

Stores a JSON Schema (from a local JSON file, or a dict) after checking
that it is one. Returns its record.`, e.schemaAdd),
	}
}

// pipelineMembers are the pipeline module's members that need the engine.
func pipelineMembers() starlark.StringDict {
	b := func(name, text string, fn builtinFunc) *starlark.Builtin {
		return doc.Builtin("pipeline."+name, text, fn)
	}
	return starlark.StringDict{
		"bots": b("bots", `bots()

Returns the documentation of every bot the workers run: dicts with tag,
description and params (name, type, required, default, description,
choices), sorted by tag.`, pipelineBots),
	}
}

// jobMembers are the job builtins that read outputs as tables.
func (e env) jobMembers() starlark.StringDict {
	return starlark.StringDict{
		"output": doc.Builtin("output", "output(jobid)\n\nReturns a completed job's output as a frame (partial ids too).", e.lazyCall("jobid", outputTable)),
		"output_export": doc.Builtin("output_export", `output_export(jobid, path, format="auto")

Writes a completed job's output to a local file (csv, json, jsonl, parquet,
xlsx; auto: from the extension), streamed and atomically. Returns the rows.`, e.exportTableCall("jobid", outputTable)),
	}
}

func (e env) datasetAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		return nil, builtins.Fail(b.Name(), err)
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
		return nil, builtins.Fail(b.Name(), err)
	case isFrame:
		src = fsrc
	case fr != starlark.None:
		return nil, fmt.Errorf("%s: frame must be a frame, not %s", b.Name(), fr.Type())
	case file == "":
		return nil, fmt.Errorf("%s: give file or frame", b.Name())
	default:
		if src, err = openSource(thread, string(file), lf); err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
	}
	defer src.Close()
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		rec, created, err := tables.Of(c).AddDataset(ctx, name, folder, src, frame.Format(remote))
		if err != nil {
			return nil, err
		}
		return builtins.DictOf(rec, nil, []starlark.Tuple{{starlark.String("created"), starlark.Bool(created)}})
	})
}

func (e env) datasetDump(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	format := "csv"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "format?", &format); err != nil {
		return nil, err
	}
	f, err := frame.ParseFormat(format)
	if err != nil || !streamable(f) {
		return nil, fmt.Errorf("%s: format must be csv, json or jsonl to print, not %q (give a file for others)", b.Name(), format)
	}
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
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

// datasetTable returns a dataset as a lazy table.
func datasetTable(ctx context.Context, c *client.Client, name string) (*lazy.Table, error) {
	t, _, err := tables.Of(c).DatasetTable(ctx, name)
	return t, err
}

// boundedTable returns a bounded dataset's published data as a lazy
// table.
func boundedTable(ctx context.Context, c *client.Client, name string) (*lazy.Table, error) {
	t, _, err := tables.Of(c).BoundedTable(ctx, name)
	return t, err
}

func (e env) boundedImport(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, file string
	local := "auto"
	publish := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "file", &file, "local_format?", &local, "publish?", &publish); err != nil {
		return nil, err
	}
	lf, err := frame.ParseFormat(local)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	src, err := openSource(thread, file, lf)
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	data, err := frame.ReadFrom(src)
	src.Close()
	if err != nil {
		return nil, builtins.Fail(b.Name(), err)
	}
	defer data.Release()
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		bd, err := tables.Of(c).BoundedImport(ctx, name, data, publish)
		return builtins.Bounded(bd), err
	})
}

func (e env) schemaAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, descr string
	var file optString
	var sch starlark.Value = starlark.None
	var overwrite bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "file?", &file, "schema?", &sch, "descr?", &descr, "overwrite?", &overwrite); err != nil {
		return nil, err
	}
	var doc any
	switch {
	case file != "" && sch != starlark.None:
		return nil, fmt.Errorf("%s: give file or schema, not both", b.Name())
	case file != "":
		data, err := os.ReadFile(host.From(thread).Path(string(file)))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), builtins.TrimPathError(err))
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %s is not JSON: %v", b.Name(), file, err)
		}
	case sch != starlark.None:
		v, err := starvalue.FromStarlark(sch)
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, builtins.Fail(b.Name(), err)
		}
		_ = json.Unmarshal(data, &doc)
	default:
		return nil, fmt.Errorf("%s: give file or schema", b.Name())
	}
	return e.Call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return tables.Of(c).AddSchema(ctx, name, descr, doc, overwrite)
	})
}

// outputTable returns a completed job's output (partial ids too) as a
// lazy table.
func outputTable(ctx context.Context, c *client.Client, jobid string) (*lazy.Table, error) {
	t, _, err := tables.Output(ctx, c, jobid)
	return t, err
}

func pipelineBots(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	type param struct {
		Name        string   `json:"name"`
		Type        string   `json:"type"`
		Required    bool     `json:"required"`
		Default     string   `json:"default"`
		Description string   `json:"description"`
		Choices     []string `json:"choices"`
	}
	type bot struct {
		Tag         string  `json:"tag"`
		Description string  `json:"description"`
		Streams     bool    `json:"streams"`
		Params      []param `json:"params"`
	}
	var out []bot
	for _, d := range engine.Bots() {
		bd := bot{Tag: d.Tag, Description: d.Description, Streams: d.Streams, Params: []param{}}
		for _, p := range d.Params {
			bd.Params = append(bd.Params, param(p))
		}
		out = append(out, bd)
	}
	return starvalue.ToStarlark(out)
}
