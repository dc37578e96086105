package tenant

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
)

// Schema returns a schema artifact.
func (t *Data) Schema(ctx context.Context, name string) (api.Schema, error) {
	var sc api.Schema
	s, err := t.Store(ctx)
	if err != nil {
		return sc, err
	}
	if _, err := s.Get(ctx, api.SchemasBucket, store.Key(name), &sc); errors.Is(err, store.ErrNotFound) {
		return sc, fmt.Errorf("no schema named %q", name)
	} else if err != nil {
		return sc, err
	}
	return sc, nil
}

// Schemas lists the schema artifacts.
func (t *Data) Schemas(ctx context.Context) ([]api.Schema, error) {
	return listOf[api.Schema](ctx, t, api.SchemasBucket)
}

// DeleteSchema deletes a schema no bounded dataset uses.
func (t *Data) DeleteSchema(ctx context.Context, name string) error {
	if _, err := t.Schema(ctx, name); err != nil {
		return err
	}
	bds, err := t.BoundedDatasets(ctx)
	if err != nil {
		return err
	}
	for _, b := range bds {
		if b.Schema == name {
			return fmt.Errorf("schema %q is used by bounded dataset %q: delete that first", name, b.Name)
		}
	}
	s, _ := t.Store(ctx)
	return s.Delete(ctx, api.SchemasBucket, store.Key(name))
}

// BoundedAdd creates an empty bounded dataset whose data must satisfy the
// schema.
func (t *Data) BoundedAdd(ctx context.Context, name, schema string) (api.BoundedDataset, error) {
	if _, err := t.Schema(ctx, schema); err != nil {
		return api.BoundedDataset{}, err
	}
	s, err := t.Store(ctx)
	if err != nil {
		return api.BoundedDataset{}, err
	}
	var old api.BoundedDataset
	if _, err := s.Get(ctx, api.BoundedBucket, store.Key(name), &old); err == nil {
		return api.BoundedDataset{}, fmt.Errorf("bounded dataset %q exists already", name)
	}
	b := api.BoundedDataset{Name: name, Schema: schema, Drafts: []string{}, DTypes: map[string]string{}, SavedTime: api.Timestamp(time.Now())}
	return b, s.Put(ctx, api.BoundedBucket, store.Key(name), b, 0)
}

// BoundedDataset returns a bounded dataset's record.
func (t *Data) BoundedDataset(ctx context.Context, name string) (api.BoundedDataset, uint64, error) {
	var b api.BoundedDataset
	s, err := t.Store(ctx)
	if err != nil {
		return b, 0, err
	}
	rev, err := s.Get(ctx, api.BoundedBucket, store.Key(name), &b)
	if errors.Is(err, store.ErrNotFound) {
		return b, 0, fmt.Errorf("no bounded dataset named %q", name)
	}
	return b, rev, err
}

// BoundedDatasets lists the bounded dataset records.
func (t *Data) BoundedDatasets(ctx context.Context) ([]api.BoundedDataset, error) {
	return listOf[api.BoundedDataset](ctx, t, api.BoundedBucket)
}

// BoundedDelete deletes a bounded dataset's drafts, then its data and
// record.
func (t *Data) BoundedDelete(ctx context.Context, name string) error {
	b, _, err := t.BoundedDataset(ctx, name)
	if err != nil {
		return err
	}
	s, _ := t.Store(ctx)
	for _, d := range b.Drafts {
		if err := s.DeleteBlob(ctx, d); err != nil {
			return err
		}
	}
	if b.Datafile != "" {
		if err := s.DeleteBlob(ctx, b.Datafile); err != nil {
			return err
		}
	}
	return s.Delete(ctx, api.BoundedBucket, store.Key(name))
}

// DraftNames returns the draft ids of drafts paths, for display.
func DraftNames(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		i := strings.LastIndex(p, "/")
		out = append(out, strings.TrimSuffix(p[i+1:], ".parquet"))
	}
	return slices.Clip(out)
}
