package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// pipelineModule is the pipeline module: pipelines stored by name and
// version (SPEC 2.10), their forms and their checksums.
func (e *Env) pipelineModule() starlark.Value {
	b := func(name, text string, fn builtinFunc) *starlark.Builtin {
		return doc.Builtin("pipeline."+name, text, fn)
	}
	return doc.Module("pipeline", `Pipelines: stored by name, one record per version
YYYY_MM_DD_N; written as YAML, JSON or the --> text form; and their
content checksums.`, starlark.StringDict{
		"CANONICAL_FORM": starlark.String(pipeline.CanonicalForm),
		"TEXT_FORM":      starlark.String(pipeline.TextForm),
		"checksum": b("checksum", `checksum(text, file=None)

Returns the content checksums of a pipeline given as JSON, YAML or text
form: {"name", "checksum", "steps": [{"step", "tag", "checksum"}]}, with
one checksum of the whole document and one per data.sequence step. file
is the name of the file the text comes from: its extension tells JSON
from YAML when the text does not, and it names a text-form pipeline.

`+pipeline.CanonicalForm, pipelineChecksum),
		"parse": b("parse", `parse(text, file=None)

Reads a pipeline written as YAML, JSON or the text form, without storing
it, and returns it as a dict (the pipeline record's fields, plus format: the form it
is written in). Its name is the document's name, else data.name, else
file's base name without extension.`, pipelineParse),
		"to_text": b("to_text", `to_text(steps)

Returns steps (a list of {tag, query, comment} dicts, as in
data.sequence) in the --> text form.`, pipelineToText),
		"list": b("list", `list()

Returns the latest version of each pipeline, by name: dicts with name,
description, usecase, category, version, sources, data, artifacts,
html_data, saved_time, pipetype and format.`, e.listCall(func(ctx context.Context, c *client.Client) (any, error) {
			return c.Pipelines(ctx)
		})),
		"get_versions": b("get_versions", `get_versions(name)

Returns every version of a pipeline, oldest first, as pipeline.list
does.`, e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
			return c.PipelineVersions(ctx, name)
		})),
		"get": b("get", `get(name, version=None)

Returns a version of a pipeline as a dict (the latest without version).`, e.pipelineGet),
		"add": b("add", `add(file=None, text=None, name=None, pipetype=None)

Stores a pipeline, read from a local file or given as text, written as
YAML, JSON or the --> text form, as the next version of the day of its
name, YYYY_MM_DD_N (N counts from 1 each day, UTC), and returns the
stored record. name replaces the document's name (which defaults to
data.name, then to the file's base name). pipetype is Published or
Draft; without it the document's, else Published.`, e.pipelineAdd),
		"publish": b("publish", `publish(name, version)

Publishes a draft version of a pipeline: its pipetype becomes Published,
so deployments whose entries say version "*" (and published-run) take it
when it is the latest published version. Returns the record; a version
published already is refused.`, e.pipelinePublish),
		"latest_published": b("latest_published", `latest_published(name)

Returns the latest published version of a pipeline (the one a
deployment's version "*" runs); fails when it has none.`, e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
			return c.LatestPublished(ctx, name)
		})),
		"delete": b("delete", `delete(name, version)

Deletes one version of a pipeline.`, e.pipelineDelete),
		"convert_to_json": b("convert_to_json", `convert_to_json(pipetype)

Keeps every pipeline of a pipetype (Published or Draft) that is kept as
YAML as JSON from now on. Returns the converted records (every version
is one), by name and version.`, e.pipelineConvert),
	})
}

func pipelineChecksum(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	var file optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "text", &text, "file?", &file); err != nil {
		return nil, err
	}
	sums, err := pipeline.ChecksumFile([]byte(text), string(file))
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return starvalue.ToStarlark(sums)
}

func pipelineParse(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	var file optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "text", &text, "file?", &file); err != nil {
		return nil, err
	}
	p, err := pipeline.Load([]byte(text), string(file))
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	return starvalue.ToStarlark(p)
}

func pipelineToText(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var steps starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "steps", &steps); err != nil {
		return nil, err
	}
	v, err := starvalue.FromStarlark(steps)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	var seq []pipeline.Step
	if err := json.Unmarshal(data, &seq); err != nil {
		return nil, fmt.Errorf("%s: steps must be a list of {tag, query, comment} dicts of strings", b.Name())
	}
	for i, s := range seq {
		if !pipeline.ValidTag(s.Tag) {
			return nil, fmt.Errorf("%s: step %d: %q is not a bot tag (want @ns:bot, *ns:bot or #ns:bot)", b.Name(), i+1, s.Tag)
		}
	}
	return starlark.String(pipeline.ToText(seq)), nil
}

func (e *Env) pipelineGet(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var version optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "version?", &version); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.Pipeline(ctx, name, string(version))
	})
}

func (e *Env) pipelineAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var file, text, name, pipetype optString
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "file?", &file, "text?", &text, "name?", &name, "pipetype?", &pipetype); err != nil {
		return nil, err
	}
	var data []byte
	switch {
	case file != "" && text != "":
		return nil, fmt.Errorf("%s: give file or text, not both", b.Name())
	case file != "":
		d, err := os.ReadFile(host.From(thread).Path(string(file)))
		if err != nil {
			return nil, fail(b.Name(), trimPathError(err))
		}
		data = d
	case text != "":
		data = []byte(text)
	default:
		return nil, fmt.Errorf("%s: give file or text", b.Name())
	}
	p, err := client.LoadPipeline(data, string(file))
	if err != nil {
		if file != "" {
			return nil, fmt.Errorf("%s: %s: %v", b.Name(), file, err)
		}
		return nil, fail(b.Name(), err)
	}
	if name != "" {
		p.Name = string(name)
	}
	if pipetype != "" {
		p.Pipetype = string(pipetype)
	}
	if p.Name == "" {
		return nil, fmt.Errorf("%s: the pipeline has no name: give name=", b.Name())
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.AddPipeline(ctx, p)
	})
}

func (e *Env) pipelineDelete(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, version string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "version", &version); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return nil, c.DeletePipeline(ctx, name, version)
	})
}

func (e *Env) pipelineConvert(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pipetype string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pipetype", &pipetype); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.ConvertPipelinesToJSON(ctx, pipetype)
	})
}

func (e *Env) pipelinePublish(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, version string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "version", &version); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return c.PublishPipeline(ctx, name, version)
	})
}
