package archiver_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/logarchive"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/archiver"
	"github.com/nats-io/nats.go/jetstream"
)

// TestArchiverPass: the records of a repository's stream are archived
// once each, by the minute they reached the stream, the minute still
// going on left for the next pass; a stream not made yet is skipped.
func TestArchiverPass(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	st, err := tenant.New(nc).Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := streams.Add(ctx, js, streams.Config{Name: "ev"}); err != nil {
		t.Fatal(err)
	}
	if _, err := logarchive.AddRepo(ctx, st, "edge", "logs", "", 0, "ev", "later"); err != nil {
		t.Fatal(err)
	}
	write := func(from, to int) {
		w, err := streams.NewWriter(ctx, js, "ev")
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i++ {
			_ = w.Write(ctx, fmt.Appendf(nil, `{"n":%d}`, i))
		}
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	archived := func() []string {
		a, err := logarchive.Open(ctx, st, "edge")
		if err != nil {
			t.Fatal(err)
		}
		files, err := a.Files(ctx, "ev", time.Now().Add(-time.Hour), 3*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		_ = a.Read(ctx, files, func(r []byte) error { out = append(out, string(r)); return nil })
		return out
	}
	write(0, 10)
	// The minute is still going on: nothing yet.
	if err := archiver.Pass(ctx, nc, time.Now(), false); err != nil {
		t.Fatal(err)
	}
	if got := archived(); len(got) != 0 {
		t.Fatalf("archived a minute not ended: %v", got)
	}
	// Two minutes on, it has ended.
	if err := archiver.Pass(ctx, nc, time.Now().Add(2*time.Minute), true); err != nil {
		t.Fatal(err)
	}
	if got := archived(); len(got) != 10 || got[0] != `{"n":0}` || got[9] != `{"n":9}` {
		t.Fatalf("archived %v", got)
	}
	// Again: nothing twice; then only the new records.
	if err := archiver.Pass(ctx, nc, time.Now().Add(2*time.Minute), false); err != nil {
		t.Fatal(err)
	}
	write(10, 15)
	if err := archiver.Pass(ctx, nc, time.Now().Add(2*time.Minute), false); err != nil {
		t.Fatal(err)
	}
	got := archived()
	if len(got) != 15 || got[14] != `{"n":14}` {
		t.Fatalf("after more records: %v", got)
	}
	seen := map[string]bool{}
	for _, r := range got {
		if seen[r] {
			t.Errorf("%s archived twice", r)
		}
		seen[r] = true
	}
}
