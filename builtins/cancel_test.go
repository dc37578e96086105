package builtins_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/fabricops/fabric/fabric/client"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/runtime/host"
	"github.com/nats-io/nats.go/jetstream"
)

// objectStoreState returns how many messages and bytes the tenant's object
// store holds: every stored chunk of every blob.
func objectStoreState(t *testing.T, cfg *client.Config) (uint64, uint64) {
	t.Helper()
	nc, err := client.BusConnect(cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, "OBJ_"+api.ObjectsBucket)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs, info.State.Bytes
}

// TestInterruptedAddKeepsOldDataset: Ctrl-C during a large dataset.add
// (its thread's context ends) stops the add at once, whether it reads a
// large local file or a download; the dataset that was there is intact and
// the store holds no chunk of the new data.
func TestInterruptedAddKeepsOldDataset(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		f := newFixture(t)
		fh, err := os.Create(filepath.Join(f.Dir, "large.csv"))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(fh)
		fmt.Fprintln(w, "host,cpu")
		row := strings.Repeat("x", 200)
		for i := 0; i < 400_000; i++ { // 80 MB
			fmt.Fprintf(w, "%s-%d,%d\n", row, i, i%100)
		}
		if err := errors.Join(w.Flush(), fh.Close()); err != nil {
			t.Fatal(err)
		}
		interruptAdd(t, f, "large.csv")
	})
	t.Run("download", func(t *testing.T) {
		f := newFixture(t)
		interruptAdd(t, f, endlessCSV(t))
	})
}

// endlessCSV serves a CSV that never ends: rows until the client goes
// away (at most a minute, so a broken cancellation cannot hang the test).
func endlessCSV(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "host,cpu")
		row := strings.Repeat("x", 200)
		deadline := time.Now().Add(time.Minute)
		for i := 0; r.Context().Err() == nil && time.Now().Before(deadline); i++ {
			if _, err := fmt.Fprintf(w, "%s-%d,%d\n", row, i, i%100); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/rows.csv"
}

// interruptAdd adds a small dataset "big", then starts replacing it with
// file and interrupts that add once its first chunks are stored.
func interruptAdd(t *testing.T, f *fixture, file string) {
	f.File("small.csv", "host,cpu\nweb-1,10\nweb-2,20\n")
	f.Exec(`dataset.add(name = "big", file = "small.csv")`)
	msgs, size := objectStoreState(t, f.Fabric.Configs["a"])

	var out bytes.Buffer
	thread := f.Thread(&out)
	done := make(chan error, 1)
	go func() {
		_, err := f.Run(thread, &out, fmt.Sprintf(`dataset.add(name = "big", file = %q, remote_format = "csv")`, file))
		done <- err
	}()
	// Interrupt once chunks of the new data are in the store.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m, _ := objectStoreState(t, f.Fabric.Configs["a"]); m > msgs+4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 30s waiting for the add to store chunks")
		}
		time.Sleep(20 * time.Millisecond)
	}
	host.Interrupt(thread)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "context canceled") {
			t.Fatalf("want the add cancelled, got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the add went on for 10s after the interrupt")
	}

	got := f.Exec(`m = dataset.meta("big")
print(m["num_rows"], m["format"])`)
	if got != "2 parquet\n" {
		t.Errorf("the old dataset is not intact: %q", got)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		m, b := objectStoreState(t, f.Fabric.Configs["a"])
		if m == msgs && b == size {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("orphaned chunks: the store holds %d messages (%d bytes), had %d (%d) before the add", m, b, msgs, size)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
