package builtins

import (
	"context"
	"errors"
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/fileformat"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// storedModule is the stored module: copies of stored data files, as
// they are. Both clients have it (it needs no data library), so a
// command's lean function can serve "dataset get --tofile x.parquet"
// without handing it to the full client.
func (e *Env) storedModule() starlark.Value {
	return doc.Module("stored", "Stored data files, copied as they are.", starlark.StringDict{
		"copy_dataset": doc.Builtin("stored.copy_dataset", `copy_dataset(name, tofile, format="auto")

Copies a dataset's stored data file to tofile when the format asked for
(format, or tofile's extension when format is auto) is the one it is
stored in, and the file is not to be compressed: returns the number of
rows. Returns None when the data would have to be converted (use
dataset.export then).`, e.storedCopyDataset),
	})
}

func (e *Env) storedCopyDataset(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, tofile, format string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "tofile", &tofile, "format?", &format); err != nil {
		return nil, err
	}
	path := host.From(thread).Path(tofile)
	want, comp, err := fileformat.Detect(path, fileformat.Format(format))
	if err != nil {
		return nil, fail(b.Name(), err)
	}
	if comp != fileformat.NoCompression {
		return starlark.None, nil
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		st, err := c.Data.Store(ctx)
		if err != nil {
			return nil, err
		}
		var d api.Dataset
		if _, err := st.Get(ctx, api.DatasetsBucket, client.RecordKey(name), &d); errors.Is(err, client.ErrNotFound) {
			return nil, fmt.Errorf("no dataset named %q", name)
		} else if err != nil {
			return nil, err
		}
		if fileformat.Format(d.Format) != want || d.NumRows < 0 {
			return starlark.None, nil
		}
		r, _, err := st.GetBlob(ctx, d.Datafile)
		if errors.Is(err, client.ErrNotFound) {
			return nil, fmt.Errorf("the data file %s is missing from the object store", d.Datafile)
		}
		if err != nil {
			return nil, err
		}
		defer r.Close()
		if err := safefile.WriteFrom(path, r); err != nil {
			return nil, err
		}
		return starlark.MakeInt64(d.NumRows), nil
	})
}
