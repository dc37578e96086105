// Package tenant is a tenant's data layer: its datasets, bounded datasets
// and schemas, objects and pipelines, kept in the tenant's JetStream
// through the store. The shell's client and the pods (a worker's bots)
// read and write a tenant's data through it alike, so both agree on keys,
// formats and the order of writes.
package tenant

import (
	"context"
	"sync"

	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
)

// Data is the data of the tenant a NATS connection belongs to. Its store
// is opened on first use; a Data is safe for concurrent use.
type Data struct {
	nc *nats.Conn

	mu    sync.Mutex
	store *store.Store
}

// New returns the data layer over an open connection of the tenant.
func New(nc *nats.Conn) *Data { return &Data{nc: nc} }

// Store returns the tenant's artifact store, opened on first use.
func (t *Data) Store(ctx context.Context) (*store.Store, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.store == nil {
		s, err := store.Open(ctx, t.nc)
		if err != nil {
			return nil, err
		}
		t.store = s
	}
	return t.store, nil
}

// listOf returns the records of a bucket of the tenant's store.
func listOf[T any](ctx context.Context, t *Data, bucket string) ([]T, error) {
	s, err := t.Store(ctx)
	if err != nil {
		return nil, err
	}
	return store.ListOf[T](ctx, s, bucket)
}
