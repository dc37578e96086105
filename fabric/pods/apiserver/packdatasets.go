package apiserver

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/packs"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/infra/tenant/tables"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/pack"
)

// datasets is the pack target of datasets: a pack's data file (CSV,
// JSON, JSON lines, Parquet or Excel, by its extension) stored as a
// dataset in Parquet. It lives in the api-server, which links the data
// libraries; the shell compares datasets by name and size only.
type datasets struct{ t *tables.Data }

// datasetTarget returns the dataset target over the tenant's store.
func datasetTarget(st *store.Store, data *tenant.Data) packs.Target {
	return &datasets{t: tables.New(data)}
}

func (d *datasets) Exists(ctx context.Context, name string) (bool, error) {
	return d.t.DatasetExists(ctx, name)
}

// format is the table format of a dataset's file.
func format(file string) (frame.Format, frame.Compression, error) {
	return frame.Detect(file, frame.Auto)
}

func (d *datasets) Prepare(_ context.Context, r pack.Rendered, _ packs.Pending) (packs.Prepared, error) {
	f, c, err := format(r.File)
	if err != nil {
		return packs.Prepared{}, err
	}
	// Read through once: a file that does not parse fails here, before
	// anything is written.
	src, err := frame.OpenReader(bytes.NewReader(r.Data), f, c)
	if err != nil {
		return packs.Prepared{}, err
	}
	defer src.Close()
	for {
		rec, err := src.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return packs.Prepared{}, err
		}
		rec.Release()
	}
	return packs.Prepared{Rendered: r, Checksum: r.Checksum}, nil
}

func (d *datasets) Write(ctx context.Context, p packs.Prepared) (api.PackCreated, error) {
	f, c, err := format(p.Rendered.File)
	if err != nil {
		return api.PackCreated{}, err
	}
	src, err := frame.OpenReader(bytes.NewReader(p.Rendered.Data), f, c)
	if err != nil {
		return api.PackCreated{}, err
	}
	defer src.Close()
	if _, _, err := d.t.AddDataset(ctx, p.Rendered.Name, "", src, "parquet"); err != nil {
		return api.PackCreated{}, err
	}
	return api.PackCreated{Type: pack.TypeDataset, Name: p.Rendered.Name, Checksum: p.Checksum}, nil
}

func (d *datasets) Remove(ctx context.Context, c api.PackCreated) error {
	err := d.t.DeleteDataset(ctx, c.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

func (d *datasets) Deployed(ctx context.Context, name string) (pack.Item, bool, error) {
	return packs.DeployedDataset(ctx, d.t.Data, name)
}
