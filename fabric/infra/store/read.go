package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// attemptTimeout bounds one attempt of a read. A read is idempotent, so
// one that gets no answer in time is asked again (within the caller's
// deadline): on a cluster, a request can go to a server that has just
// died, or to a replica that is still catching up after a restart and
// does not answer yet.
const attemptTimeout = 3 * time.Second

// BlobIdleTimeout is how long a blob read may wait for its next chunk
// before it fails; a read has no bound on its whole length (a large
// dataset takes as long as it takes), only on a stall and the caller's
// context.
const BlobIdleTimeout = 30 * time.Second

// retryRead runs the read f, trying again while an attempt times out and
// ctx has time left.
func retryRead(ctx context.Context, f func(ctx context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err := f(actx)
		cancel()
		if err == nil || !timedOut(err) || ctx.Err() != nil {
			return err
		}
	}
}

// timedOut reports whether err says a request got no answer in time.
func timedOut(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
}

// GetBlob opens the blob at path for reading; the caller closes it. The
// open is tried again while it times out (within Timeout); the read then
// runs as long as chunks keep coming, until ctx ends or none comes for
// BlobIdleTimeout.
func (s *Store) GetBlob(ctx context.Context, path string) (io.ReadCloser, int64, error) {
	octx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var r io.ReadCloser
	var size int64
	err := retryRead(octx, func(actx context.Context) (err error) {
		r, size, err = s.openBlob(ctx, actx, path)
		return err
	})
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, 0, ErrNotFound
	}
	if err != nil {
		if timedOut(err) && ctx.Err() == nil {
			return nil, 0, fmt.Errorf("reading %s: timed out after %s opening it", path, Timeout)
		}
		return nil, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return r, size, nil
}

// openBlob opens path within the attempt's context actx; the reader it
// returns lives on ctx. (The object store bounds a whole read by its
// context's deadline, or by 5 s when that has none; so the read gets a
// context with no deadline of its own but a far one, and an idle timer.)
func (s *Store) openBlob(ctx, actx context.Context, path string) (io.ReadCloser, int64, error) {
	rctx, cancel := context.WithTimeout(ctx, 24*time.Hour)
	stop := context.AfterFunc(actx, cancel)
	obj, err := s.objects.Get(rctx, path)
	if !stop() {
		// The attempt ended first (its timeout, or ctx's end) and
		// cancelled rctx: say which.
		if err == nil {
			obj.Close()
		}
		cancel()
		return nil, 0, actx.Err()
	}
	if err != nil {
		cancel()
		return nil, 0, err
	}
	info, err := obj.Info()
	if err != nil {
		obj.Close()
		cancel()
		return nil, 0, err
	}
	ir := &idleReader{r: obj, cancel: cancel}
	ir.timer = time.AfterFunc(BlobIdleTimeout, ir.expire)
	ir.timer.Stop()
	return ir, int64(info.Size), nil
}

// idleReader fails a Read that waits longer than BlobIdleTimeout for
// bytes (time the caller spends between reads does not count).
type idleReader struct {
	r      jetstream.ObjectResult
	cancel context.CancelFunc
	timer  *time.Timer
	mu     sync.Mutex
	idle   bool
}

func (ir *idleReader) expire() {
	ir.mu.Lock()
	ir.idle = true
	ir.mu.Unlock()
	ir.cancel()
}

func (ir *idleReader) Read(p []byte) (int, error) {
	ir.timer.Reset(BlobIdleTimeout)
	n, err := ir.r.Read(p)
	ir.timer.Stop()
	ir.mu.Lock()
	idle := ir.idle
	ir.mu.Unlock()
	if idle && err != nil && err != io.EOF {
		return n, fmt.Errorf("no data for %s: the store stopped sending", BlobIdleTimeout)
	}
	return n, err
}

func (ir *idleReader) Close() error {
	ir.timer.Stop()
	err := ir.r.Close()
	ir.cancel()
	return err
}
