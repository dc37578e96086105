package tenant

import (
	"context"
	"errors"
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
)

// DatasetExists reports whether the tenant has a dataset of that name.
func (t *Data) DatasetExists(ctx context.Context, name string) (bool, error) {
	_, err := t.Dataset(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Dataset returns a dataset's record.
func (t *Data) Dataset(ctx context.Context, name string) (api.Dataset, error) {
	var d api.Dataset
	s, err := t.Store(ctx)
	if err != nil {
		return d, err
	}
	if _, err := s.Get(ctx, api.DatasetsBucket, store.Key(name), &d); errors.Is(err, store.ErrNotFound) {
		return d, notFound(fmt.Sprintf("no dataset named %q", name))
	} else if err != nil {
		return d, err
	}
	return d, nil
}

// Datasets lists the dataset records, by name.
func (t *Data) Datasets(ctx context.Context) ([]api.Dataset, error) {
	return listOf[api.Dataset](ctx, t, api.DatasetsBucket)
}

// DeleteDataset deletes a dataset's record and data.
func (t *Data) DeleteDataset(ctx context.Context, name string) error {
	d, err := t.Dataset(ctx, name)
	if err != nil {
		return err
	}
	s, _ := t.Store(ctx)
	if err := s.Delete(ctx, api.DatasetsBucket, store.Key(name)); err != nil {
		return err
	}
	return s.DeleteBlob(ctx, d.Datafile)
}
