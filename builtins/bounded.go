//go:build !lean

package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/client/tables"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/fabricops/fabric/runtime/value"
	"go.starlark.net/starlark"
)

// bounded names a bounded dataset's drafts by their names, not their paths.
func bounded(b api.BoundedDataset) api.BoundedDataset {
	b.Drafts = tenant.DraftNames(b.Drafts)
	return b
}

func boundedList(ctx context.Context, c *client.Client) (any, error) {
	bds, err := c.BoundedDatasets(ctx)
	for i := range bds {
		bds[i] = bounded(bds[i])
	}
	return bds, err
}

func boundedMeta(ctx context.Context, c *client.Client, name string) (any, error) {
	bd, _, err := c.BoundedDataset(ctx, name)
	return bounded(bd), err
}

func boundedDelete(ctx context.Context, c *client.Client, name string) (any, error) {
	return nil, c.BoundedDelete(ctx, name)
}

// boundedTable returns a bounded dataset's published data as a lazy
// table.
func boundedTable(ctx context.Context, c *client.Client, name string) (*lazy.Table, error) {
	t, _, err := tables.Of(c).BoundedTable(ctx, name)
	return t, err
}

func (e *Env) boundedAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, schema string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "schema", &schema); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		bd, err := c.BoundedAdd(ctx, name, schema)
		return bounded(bd), err
	})
}

func (e *Env) boundedImport(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, file string
	local := "auto"
	publish := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "file", &file, "local_format?", &local, "publish?", &publish); err != nil {
		return nil, err
	}
	lf, err := frame.ParseFormat(local)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	src, err := openSource(thread, file, lf)
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	data, err := frame.ReadFrom(src)
	src.Close()
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	defer data.Release()
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		bd, err := tables.Of(c).BoundedImport(ctx, name, data, publish)
		return bounded(bd), err
	})
}

// schemaModule is the schema module: JSON Schema artifacts that bound
// datasets.
func (e *Env) schemaModule() starlark.Value {
	return doc.Module("schema", "Schema artifacts: JSON Schema documents by name, which bounded datasets are validated against.", starlark.StringDict{
		"add": doc.Builtin("schema.add", `add(name, file=None, schema=None, descr="", overwrite=False)

Stores a JSON Schema (from a local JSON file, or a dict) after checking
that it is one. Returns its record.`, e.schemaAdd),
		"get": doc.Builtin("schema.get", "get(name)\n\nReturns a schema's record: name, description, saved_time, schema.",
			e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) { return c.Schema(ctx, name) })),
		"list": doc.Builtin("schema.list", "list()\n\nReturns the schema records.",
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) { return c.Schemas(ctx) })),
		"delete": doc.Builtin("schema.delete", "delete(name)\n\nDeletes a schema that no bounded dataset uses.",
			e.nameCall(func(ctx context.Context, c *client.Client, name string) (any, error) {
				return nil, c.DeleteSchema(ctx, name)
			})),
	})
}

func (e *Env) schemaAdd(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
			return nil, fmt.Errorf("%s: %v", b.Name(), trimPathError(err))
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %s is not JSON: %v", b.Name(), file, err)
		}
	case sch != starlark.None:
		v, err := value.FromStarlark(sch)
		if err != nil {
			return nil, fail(b.Name(), err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fail(b.Name(), err)
		}
		_ = json.Unmarshal(data, &doc)
	default:
		return nil, fmt.Errorf("%s: give file or schema", b.Name())
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		return tables.Of(c).AddSchema(ctx, name, descr, doc, overwrite)
	})
}
