package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go/jetstream"
)

// TestBlobFile: reads at any offset return the blob's bytes, whether the
// blob is read by chunk (as PutBlob stores it: chunks of one size, one
// after the other) or downloaded (chunks of other sizes: the tail from the
// last chunks, the rest as the download reaches it); a read past the end
// says EOF, a cancelled download fails the reads still waiting, and Close
// removes the temporary file.
func TestBlobFile(t *testing.T) {
	s, nc := openStoreConn(t)
	ctx := context.Background()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := js.ObjectStore(ctx, api.ObjectsBucket)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		size   int
		uneven bool
	}{{0, false}, {10, false}, {128 << 10, false}, {3<<20 + 17, false}, {10, true}, {3<<20 + 17, true}} {
		size := c.size
		want := make([]byte, size)
		rand.Read(want)
		if c.uneven {
			// Half reads make chunks of 64 KB: read by download.
			if _, err := raw.Put(ctx, jetstream.ObjectMeta{Name: "bf/blob"}, iotest.HalfReader(bytes.NewReader(want))); err != nil {
				t.Fatal(err)
			}
		} else if _, err := s.PutBlob(ctx, "bf/blob", iotest.HalfReader(bytes.NewReader(want))); err != nil {
			t.Fatal(err)
		}
		b, err := s.OpenBlobFile(ctx, "bf/blob", true)
		if err != nil {
			t.Fatal(err)
		}
		if size > 0 && b.Downloads() != (c.uneven && size > 64<<10) { // one chunk is even
			t.Errorf("size %d, uneven chunks %v: downloads %v", size, c.uneven, b.Downloads())
		}
		if b.Size() != int64(size) {
			t.Fatalf("size %d, want %d", b.Size(), size)
		}
		for _, r := range [][2]int{{size - 8, 8}, {size - 100, 100}, {0, 4}, {size / 2, 70000}, {0, size}, {size / 3, 1}} {
			off, n := max(r[0], 0), min(r[1], size-max(r[0], 0))
			p := make([]byte, n)
			got, err := b.ReadAt(p, int64(off))
			if err != nil || got != n || !bytes.Equal(p, want[off:off+n]) {
				t.Fatalf("size %d: ReadAt(%d, %d) = %d, %v", size, n, off, got, err)
			}
		}
		if _, err := b.ReadAt(make([]byte, 4), int64(size)); err != io.EOF {
			t.Errorf("size %d: read at the end: %v, want EOF", size, err)
		}
		if size > 8 {
			p := make([]byte, 16)
			if n, err := b.ReadAt(p, int64(size-8)); n != 8 || err != io.EOF {
				t.Errorf("size %d: read across the end: %d %v, want 8 and EOF", size, n, err)
			}
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), "fabric-blob-*"))
	cctx, cancel := context.WithCancel(ctx)
	b, err := s.OpenBlobFile(cctx, "bf/blob", false)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := b.ReadAt(make([]byte, 10), 0); err == nil {
		// The download may have finished before the cancel; then the
		// bytes are there and the read is right to succeed.
		t.Log("the download finished before the cancel")
	}
	b.Close()
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "fabric-blob-*"))
	if len(after) > len(left) {
		t.Errorf("temporary files left: %v", after)
	}
}

// TestBlobFileCloseMidDownload: closing a blob file while its download
// waits for the next chunk returns at once, every time (a cancelled
// object read used to wait for a chunk that never came).
func TestBlobFileCloseMidDownload(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	want := make([]byte, 8<<20)
	rand.Read(want)
	if _, err := s.PutBlob(ctx, "bf/big", bytes.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		b, err := s.OpenBlobFile(ctx, "bf/big", false)
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 1<<10)
		if _, err := b.ReadAt(p, int64(i)<<10); err != nil || !bytes.Equal(p, want[i<<10:(i+1)<<10]) {
			t.Fatalf("read %d: %v", i, err)
		}
		closed := make(chan error, 1)
		go func() { closed <- b.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("close %d: still waiting after 5s", i)
		}
	}
}

// TestBlobFileReadMost: a blob read by chunk that is told most of it will
// be read downloads it instead; the reads after (at any offset, past the
// end) return its bytes as before, and Close removes the download's file.
// A blob told nothing stays read by chunk.
func TestBlobFileReadMost(t *testing.T) {
	s, _ := openStoreConn(t)
	ctx := context.Background()
	const size = 3<<20 + 17
	want := make([]byte, size)
	rand.Read(want)
	if _, err := s.PutBlob(ctx, "bf/most", bytes.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), "fabric-blob-*"))
	b, err := s.OpenBlobFile(ctx, "bf/most", true)
	if err != nil {
		t.Fatal(err)
	}
	footer := make([]byte, 100)
	if _, err := b.ReadAt(footer, size-100); err != nil || !bytes.Equal(footer, want[size-100:]) {
		t.Fatalf("the footer by chunk: %v", err)
	}
	if b.Downloads() {
		t.Fatal("a blob of even chunks downloads before ReadMost")
	}
	b.ReadMost()
	b.ReadMost() // once is enough
	if !b.Downloads() {
		t.Fatal("ReadMost did not start a download")
	}
	for _, r := range [][2]int{{0, size}, {size - 8, 8}, {size / 2, 70000}, {5, 1}} {
		p := make([]byte, r[1])
		if n, err := b.ReadAt(p, int64(r[0])); err != nil || n != r[1] || !bytes.Equal(p, want[r[0]:r[0]+r[1]]) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v", r[1], r[0], n, err)
		}
	}
	if n, err := b.ReadAt(make([]byte, 16), size-8); n != 8 || err != io.EOF {
		t.Errorf("read across the end: %d %v, want 8 and EOF", n, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "fabric-blob-*"))
	if len(after) > len(left) {
		t.Errorf("temporary files left: %v", after)
	}

	// Closed before: no download starts.
	b, err = s.OpenBlobFile(ctx, "bf/most", true)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	b.ReadMost()
	if b.Downloads() {
		t.Error("ReadMost after Close started a download")
	}
}
