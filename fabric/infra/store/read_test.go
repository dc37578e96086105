package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/nats-io/nats.go"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, _ := openStoreConn(t)
	return s
}

// openStoreConn is openStore with its connection.
func openStoreConn(t *testing.T) (*store.Store, *nats.Conn) {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	s, err := store.Open(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	return s, nc
}

// TestSlowBlobRead: a read that takes longer than the object store's
// default request timeout (5 s) is whole, because only a stall bounds it;
// a cancelled context stops one.
func TestSlowBlobRead(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	want := make([]byte, 1<<20)
	rand.Read(want)
	if _, err := s.PutBlob(ctx, "slow/blob", bytes.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	r, size, err := s.GetBlob(ctx, "slow/blob")
	if err != nil || size != int64(len(want)) {
		t.Fatalf("GetBlob: %d %v", size, err)
	}
	head := make([]byte, 1000)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5500 * time.Millisecond) // a slow consumer of the bytes
	rest, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(append(head, rest...), want) {
		t.Fatalf("slow read: %d bytes, %v", len(head)+len(rest), err)
	}

	cctx, cancel := context.WithCancel(ctx)
	r, _, err = s.GetBlob(cctx, "slow/blob")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cancel()
	if _, err := io.ReadAll(r); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled read: %v", err)
	}
	if _, _, err := s.GetBlob(ctx, "no/such"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a missing blob: %v", err)
	}
}
