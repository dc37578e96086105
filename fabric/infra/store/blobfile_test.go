package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestBlobFile: reads at any offset return the blob's bytes (the tail
// from the last chunk, the rest as the download reaches it), a read past
// the end says EOF, a cancelled download fails the reads still waiting,
// and Close removes the temporary file.
func TestBlobFile(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for _, size := range []int{0, 10, 128 << 10, 3<<20 + 17} {
		want := make([]byte, size)
		rand.Read(want)
		if _, err := s.PutBlob(ctx, "bf/blob", bytes.NewReader(want)); err != nil {
			t.Fatal(err)
		}
		b, err := s.OpenBlobFile(ctx, "bf/blob")
		if err != nil {
			t.Fatal(err)
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
	b, err := s.OpenBlobFile(cctx, "bf/blob")
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
