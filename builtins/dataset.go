package builtins

import (
	"context"
	"errors"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// datasetModule is the dataset module: tables stored in the tenant's
// object store with a record in KV (SPEC 2.6).
func (e *Env) datasetModule() starlark.Value {
	b := func(name, text string, fn builtinFunc) *starlark.Builtin {
		return doc.Builtin("dataset."+name, text, fn)
	}
	return doc.Module("dataset", "Datasets: tables in the tenant's object store, with records in KV.", starlark.StringDict{
		"list":           b("list", "list()\n\nReturns the dataset records: name, format, datafile, mem_size_mb, num_rows,\nnum_columns, saved_time, dtypes.", e.listCall(datasetList)),
		"meta":           b("meta", "meta(name, missing_ok=False)\n\nReturns a dataset's record; with missing_ok, None when there is no such\ndataset (any other failure still fails).", e.datasetMeta),
		"delete":         b("delete", "delete(name)\n\nDeletes a dataset: its record and its data.", e.nameCall(datasetDelete)),
		"bounded_add":    b("bounded_add", "bounded_add(name, schema)\n\nCreates an empty bounded dataset whose data must satisfy the schema artifact.", e.boundedAdd),
		"bounded_list":   b("bounded_list", "bounded_list()\n\nReturns the bounded dataset records.", e.listCall(boundedList)),
		"bounded_meta":   b("bounded_meta", "bounded_meta(name)\n\nReturns a bounded dataset's record.", e.nameCall(boundedMeta)),
		"bounded_delete": b("bounded_delete", "bounded_delete(name)\n\nDeletes a bounded dataset's drafts, then the bounded dataset.", e.nameCall(boundedDelete)),
	})
}

func datasetList(ctx context.Context, c *client.Client) (any, error) { return c.Datasets(ctx) }

func (e *Env) datasetMeta(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var missingOK bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "missing_ok?", &missingOK); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		d, err := c.Dataset(ctx, name)
		if missingOK && errors.Is(err, client.ErrNotFound) {
			return nil, nil
		}
		return d, err
	})
}

func datasetDelete(ctx context.Context, c *client.Client, name string) (any, error) {
	return nil, c.DeleteDataset(ctx, name)
}
