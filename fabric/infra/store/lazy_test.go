package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestObjectStoreLookedUpOnFirstUse: a store that only reads records
// never asks for the object store's stream information (a request the
// lean client made for each command); the first blob operation looks it
// up, once.
func TestObjectStoreLookedUpOnFirstUse(t *testing.T) {
	_, nc := openStoreConn(t)
	var asked atomic.Int64
	sub, err := nc.Subscribe("$JS.API.STREAM.INFO.OBJ_"+api.ObjectsBucket, func(*nats.Msg) { asked.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := s.KV(ctx, jetstream.KeyValueConfig{Bucket: "lazy-test", History: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Get(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	settle := func(want int64) {
		t.Helper()
		_ = nc.Flush()
		deadline := time.Now().Add(2 * time.Second)
		for asked.Load() != want && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		if got := asked.Load(); got != want {
			t.Fatalf("the object store's stream information was asked %d times, want %d", got, want)
		}
	}
	settle(0)
	for i := 0; i < 2; i++ {
		if _, err := s.BlobSize(ctx, "no/such/blob"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("BlobSize: %v", err)
		}
	}
	settle(1)
}
