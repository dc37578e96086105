package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"go.starlark.net/starlark"
)

// smallOutputBuiltin is small_output(jobid): the copy of a small output
// that the job's record keeps, for the lean build, which has no Parquet
// reader.
func (e *Env) smallOutputBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var id string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "jobid", &id); err != nil {
		return nil, err
	}
	return e.call(thread, b, func(ctx context.Context, c *client.Client) (any, error) {
		j, err := c.Job(ctx, id)
		if err != nil {
			return nil, err
		}
		if j.Status != api.JobCompleted || j.Output == "" || j.SmallOutput == nil {
			return starlark.None, nil
		}
		return smallOutputValue(j.SmallOutput)
	})
}

// smallOutputValue is a small output's copy as small_output returns it:
// rows as the data build's frame rows() gives them (cells converted by
// starvalue.Scalar, as there) and the printed table.
func smallOutputValue(s *api.SmallOutput) (starlark.Value, error) {
	cells, err := s.Cells()
	if err != nil {
		return nil, err
	}
	rows := make([]starlark.Value, len(cells))
	for i, row := range cells {
		d := starlark.NewDict(len(s.Columns))
		for c, name := range s.Columns {
			if err := d.SetKey(starlark.String(name), starvalue.Scalar(row[c])); err != nil {
				return nil, err
			}
		}
		rows[i] = d
	}
	out := starlark.NewDict(2)
	_ = out.SetKey(starlark.String("rows"), starlark.NewList(rows))
	_ = out.SetKey(starlark.String("text"), starlark.String(s.Text))
	return out, nil
}
