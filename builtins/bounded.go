package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// bounded names a bounded dataset's drafts by their names, not their paths.
func bounded(b api.BoundedDataset) api.BoundedDataset {
	b.Drafts = client.DraftNames(b.Drafts)
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

// schemaModule is the schema module: JSON Schema artifacts that bound
// datasets.
func (e *Env) schemaModule() starlark.Value {
	return doc.Module("schema", "Schema artifacts: JSON Schema documents by name, which bounded datasets are validated against.", starlark.StringDict{
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
