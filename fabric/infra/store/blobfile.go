package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go/jetstream"
)

// BlobFile gives random access to a blob. A blob stored by PutBlob (its
// chunks one after the other, all of one size but the last) is read by
// chunk: a read fetches the chunks that hold its bytes and nothing else,
// so a reader of some columns of a Parquet file fetches those columns.
// Any other blob streams into a temporary file while it is read, and a
// read waits only for the bytes it asks for: the blob's last chunks are
// fetched first, on their own, so a reader that starts at the end (a
// Parquet footer) does not wait for the whole download, and one that then
// reads in order decodes the first bytes while the rest arrive. The file
// is removed on Close.
type BlobFile struct {
	path   string
	size   int64
	chunks *chunkReader // reads by chunk, when the blob allows (then no download)
	f      *os.File
	ctx    context.Context

	// Read by chunk, the blob can be downloaded after all (ReadMost).
	store       *Store
	whole       sync.Once
	downloading atomic.Bool // the download serves the reads

	// The blob's last bytes, fetched chunk by chunk from the end (by
	// their sequence in the object store's stream) for the reads that
	// start near the end before the download gets there.
	tailMu    sync.Mutex
	tail      []byte // the bytes from tailStart to the end
	tailStart int64
	stream    jetstream.Stream // nil: no tail
	subject   string           // the blob's chunks
	seq       uint64           // the sequence of the earliest chunk in tail

	mu      sync.Mutex
	cond    *sync.Cond
	written int64 // bytes of the file written so far
	err     error // why the download stopped early
	done    chan struct{}
	cancel  context.CancelFunc
}

// OpenBlobFile opens the blob at path for reads at offsets, by chunk when
// byChunk is set and the blob allows it (a reader of some parts of the
// blob), else by a download (a reader of all of it); the caller closes
// the BlobFile. Reads run on ctx: cancelling it fails those that wait.
func (s *Store) OpenBlobFile(ctx context.Context, path string, byChunk bool) (*BlobFile, error) {
	dctx, cancel := context.WithCancel(ctx)
	if byChunk {
		c, err := s.openChunks(dctx, path)
		if err != nil {
			cancel()
			return nil, err
		}
		if c != nil {
			return &BlobFile{path: path, size: c.size, chunks: c, ctx: dctx, cancel: cancel, store: s}, nil
		}
	}
	r, size, err := s.GetBlob(dctx, path)
	if err != nil {
		cancel()
		return nil, err
	}
	f, err := os.CreateTemp("", "fabric-blob-*")
	if err != nil {
		r.Close()
		cancel()
		return nil, fmt.Errorf("reading %s: %v", path, err)
	}
	b := &BlobFile{path: path, size: size, f: f, ctx: dctx, done: make(chan struct{}), cancel: cancel, tailStart: size}
	b.cond = sync.NewCond(&b.mu)
	s.startTail(dctx, b, r)
	go b.download(r)
	return b, nil
}

// maxTail bounds the bytes fetched from the end ahead of the download:
// enough for a file's footer (a Parquet footer is tens of KB), not for
// its data, which the download brings faster than chunk-by-chunk requests.
const maxTail = 1 << 20

// startTail fetches the last chunk of the blob r reads into b.tail; b
// has no tail when that cannot be told (the reads then wait for the
// download).
func (s *Store) startTail(ctx context.Context, b *BlobFile, r io.ReadCloser) {
	ir, ok := r.(*idleReader)
	if !ok {
		return
	}
	info, err := ir.r.Info()
	if err != nil || info.Chunks == 0 || info.NUID == "" {
		return
	}
	stream, err := s.objectStream(ctx)
	if err != nil {
		return
	}
	actx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	subject := "$O." + s.bucket + ".C." + info.NUID
	msg, err := stream.GetLastMsgForSubject(actx, subject)
	if err != nil || int64(len(msg.Data)) > b.size {
		return
	}
	b.stream, b.subject, b.seq = stream, subject, msg.Sequence
	b.tail, b.tailStart = msg.Data, b.size-int64(len(msg.Data))
}

// objectStream returns the stream that holds the object store's chunks
// (looked up once).
func (s *Store) objectStream(ctx context.Context) (jetstream.Stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chunks != nil {
		return s.chunks, nil
	}
	ctx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	st, err := s.js.Stream(ctx, "OBJ_"+s.bucket)
	if err != nil {
		return nil, err
	}
	s.chunks = st
	return st, nil
}

// fromTail copies the bytes at off from the tail, fetching earlier chunks
// first when the read runs into the tail from within maxTail of the end;
// ok is false when the read must wait for the download.
func (b *BlobFile) fromTail(p []byte, off int64) (n int, ok bool) {
	b.tailMu.Lock()
	defer b.tailMu.Unlock()
	end := off + int64(len(p))
	if off < b.tailStart && end >= b.tailStart && b.stream != nil && b.size-off <= maxTail {
		// A read that runs into the tail (a footer that starts before
		// the last chunk): fetch back to it.
		b.extendTail(off)
	}
	if off < b.tailStart {
		return 0, false
	}
	return copy(p, b.tail[off-b.tailStart:]), true
}

// extendTail fetches the chunks before the tail, from the end back, until
// the tail starts at or before off. Chunks of other blobs stored at the
// same time are passed over; a gap it cannot explain stops it.
func (b *BlobFile) extendTail(off int64) {
	ctx, cancel := context.WithTimeout(b.ctx, AttemptTimeout)
	defer cancel()
	for tries := 0; b.tailStart > off && b.seq > 1 && tries < 1024; tries++ {
		msg, err := b.stream.GetMsg(ctx, b.seq-1)
		if err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
			b.stream = nil // the download serves the rest
			return
		}
		b.seq--
		if err != nil || msg.Subject != b.subject {
			continue
		}
		if int64(len(msg.Data)) > b.tailStart {
			b.stream = nil
			return
		}
		b.tail = append(append(make([]byte, 0, len(msg.Data)+len(b.tail)), msg.Data...), b.tail...)
		b.tailStart -= int64(len(msg.Data))
	}
}

// download copies the blob into the file, waking the reads as bytes
// arrive.
func (b *BlobFile) download(r io.ReadCloser) {
	defer close(b.done)
	defer r.Close()
	buf := make([]byte, 256<<10)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if _, err := b.f.Write(buf[:n]); err != nil {
				b.stop(fmt.Errorf("reading %s: %v", b.path, err))
				return
			}
			b.mu.Lock()
			b.written += int64(n)
			b.cond.Broadcast()
			b.mu.Unlock()
		}
		if rerr == io.EOF {
			if b.written != b.size {
				b.stop(fmt.Errorf("reading %s: %d bytes of %d", b.path, b.written, b.size))
			}
			return
		}
		if rerr != nil {
			b.stop(fmt.Errorf("reading %s: %w", b.path, rerr))
			return
		}
	}
}

func (b *BlobFile) stop(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.cond.Broadcast()
	b.mu.Unlock()
}

// Prefetch starts fetching n bytes at off ahead of their reads, when the
// blob is read by chunk (a downloaded blob brings them anyway).
func (b *BlobFile) Prefetch(off, n int64) {
	if b.byChunk() {
		b.chunks.prefetch(off, n)
	}
}

// ReadMost tells a blob read by chunk that its reader will read most of
// it (every column of a Parquet file): it is downloaded instead, in one
// stream, which costs the store much less than a request a chunk (for a
// scan of every column, the store's share of the CPU halves). The reads
// from then on wait for the download's bytes. A download that cannot
// start leaves the reads by chunk.
func (b *BlobFile) ReadMost() {
	if b.chunks == nil {
		return
	}
	b.whole.Do(func() {
		r, size, err := b.store.GetBlob(b.ctx, b.path)
		if err != nil {
			return
		}
		if size != b.size {
			r.Close()
			return
		}
		f, err := os.CreateTemp("", "fabric-blob-*")
		if err != nil {
			r.Close()
			return
		}
		b.f, b.done, b.tailStart = f, make(chan struct{}), size
		b.cond = sync.NewCond(&b.mu)
		go b.download(r)
		b.downloading.Store(true)
	})
}

// byChunk reports whether the reads go by chunk.
func (b *BlobFile) byChunk() bool { return b.chunks != nil && !b.downloading.Load() }

// Downloads reports whether the blob is downloaded (its chunks do not
// allow reads by chunk, or ReadMost asked for it).
func (b *BlobFile) Downloads() bool { return !b.byChunk() }

// Size returns the blob's size.
func (b *BlobFile) Size() int64 { return b.size }

// ReadAt reads len(p) bytes at off, waiting until they have arrived.
func (b *BlobFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off >= b.size {
		return 0, io.EOF
	}
	if b.byChunk() {
		n, err := b.chunks.readAt(p, off)
		if err == nil && n < len(p) {
			err = io.EOF
		}
		return n, err
	}
	end := min(off+int64(len(p)), b.size)
	b.mu.Lock()
	arrived := b.written >= end
	b.mu.Unlock()
	if !arrived {
		if n, ok := b.fromTail(p, off); ok {
			if n < len(p) {
				return n, io.EOF
			}
			return n, nil
		}
	}
	b.mu.Lock()
	for b.written < end && b.err == nil {
		b.cond.Wait()
	}
	arrived, err := b.written >= end, b.err
	b.mu.Unlock()
	if !arrived {
		return 0, err
	}
	n, err := b.f.ReadAt(p[:end-off], off)
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}

// Seek supports what a reader asks to learn the size (io.SeekEnd); the
// reads themselves go through ReadAt.
func (b *BlobFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekEnd:
		return b.size + offset, nil
	case io.SeekStart:
		return offset, nil
	}
	return 0, errors.New("seek: only from the start or the end")
}

// Close stops the download and removes the file.
func (b *BlobFile) Close() error {
	b.cancel()
	b.whole.Do(func() {}) // no download starts from now on
	if b.byChunk() {
		return nil
	}
	<-b.done
	b.stop(errors.New("closed"))
	b.f.Close()
	return os.Remove(b.f.Name())
}
