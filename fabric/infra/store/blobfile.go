package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// BlobFile gives random access to a blob while it downloads: the blob's
// bytes stream into a temporary file, and a read waits only for the bytes
// it asks for. The blob's last chunk is fetched first, on its own, so a
// reader that starts at the end (a Parquet footer) does not wait for the
// whole download; one that then reads in order (Parquet row groups)
// decodes the first bytes while the rest arrive. Memory holds one chunk;
// the file is removed on Close.
type BlobFile struct {
	path string
	size int64
	tail []byte // the blob's last bytes, at size-len(tail)
	f    *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	written int64 // bytes of the file written so far
	err     error // why the download stopped early
	done    chan struct{}
	cancel  context.CancelFunc
}

// OpenBlobFile starts downloading the blob at path; the caller closes the
// BlobFile. The download runs on ctx: cancelling it fails the reads that
// still wait.
func (s *Store) OpenBlobFile(ctx context.Context, path string) (*BlobFile, error) {
	dctx, cancel := context.WithCancel(ctx)
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
	b := &BlobFile{path: path, size: size, f: f, done: make(chan struct{}), cancel: cancel}
	b.cond = sync.NewCond(&b.mu)
	b.tail = s.blobTail(ctx, path, r)
	go b.download(r)
	return b, nil
}

// blobTail returns the last chunk of the blob r reads, or nil when it
// cannot tell which it is (the reads then wait for the download).
func (s *Store) blobTail(ctx context.Context, path string, r io.ReadCloser) []byte {
	ir, ok := r.(*idleReader)
	if !ok {
		return nil
	}
	info, err := ir.r.Info()
	if err != nil || info.Chunks == 0 || info.NUID == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	stream, err := s.js.Stream(ctx, "OBJ_"+s.bucket)
	if err != nil {
		return nil
	}
	msg, err := stream.GetLastMsgForSubject(ctx, "$O."+s.bucket+".C."+info.NUID)
	if err != nil || int64(len(msg.Data)) > int64(info.Size) {
		return nil
	}
	return msg.Data
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
	end := min(off+int64(len(p)), b.size)
	if start := b.size - int64(len(b.tail)); off >= start {
		n := copy(p, b.tail[off-start:])
		if n < len(p) {
			return n, io.EOF
		}
		return n, nil
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
	<-b.done
	b.stop(errors.New("closed"))
	b.f.Close()
	return os.Remove(b.f.Name())
}
