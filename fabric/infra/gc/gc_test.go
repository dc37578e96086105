package gc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/gc"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
)

// TestCollect: a stored file that no record names is removed once older
// than the grace, and only then; what records name stays.
func TestCollect(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	data := tenant.New(nc)
	if _, err := data.AddObject(ctx, "docs", "kept.txt", "", strings.NewReader("named by a record"), false); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutBlob(ctx, "datasets/lost/abc.parquet", strings.NewReader("no record names this")); err != nil {
		t.Fatal(err)
	}

	r, err := gc.Collect(ctx, s, time.Hour, false)
	if err != nil || len(r.Blobs) != 0 || r.Young != 1 {
		t.Fatalf("within the grace: %+v %v", r, err)
	}
	r, err = gc.Collect(ctx, s, 0, true)
	if err != nil || len(r.Blobs) != 1 || r.Blobs[0] != "datasets/lost/abc.parquet" || r.BlobBytes != 20 || r.Freed != 0 {
		t.Fatalf("dry run: %+v %v", r, err)
	}
	r, err = gc.Collect(ctx, s, 0, false)
	if err != nil || len(r.Blobs) != 1 || r.Freed == 0 {
		t.Fatalf("sweep: %+v %v", r, err)
	}
	blobs, _ := s.Blobs(ctx)
	if len(blobs) != 1 || !strings.HasPrefix(blobs[0], "docs/") {
		t.Fatalf("left: %v", blobs)
	}
}
