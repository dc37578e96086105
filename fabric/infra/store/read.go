package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// AttemptTimeout bounds one attempt of a request that can be asked again
// (a read, or a write that carries the revision it expects). One that
// gets no answer in time is asked again (within the caller's deadline): a
// request can go to a server that has just died or is shutting down for
// a restart (it is lost, and its answer never comes), or to a replica
// that is still catching up after a restart and does not answer yet.
const AttemptTimeout = 3 * time.Second

// BlobIdleTimeout is how long a blob read may wait for its next chunk
// before it fails; a read has no bound on its whole length (a large
// dataset takes as long as it takes), only on a stall and the caller's
// context.
const BlobIdleTimeout = 30 * time.Second

// Retry runs f, a request that may be asked twice (a read, or a write
// that carries the revision it expects, which fails the second time if
// the first landed), trying again while an attempt times out and ctx has
// time left; each attempt gets at most AttemptTimeout.
func Retry(ctx context.Context, f func(ctx context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, AttemptTimeout)
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
	err := Retry(octx, func(actx context.Context) (err error) {
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
// context with a far deadline, which becomes a short poll once the
// object is open: see pollContext.)
func (s *Store) openBlob(ctx, actx context.Context, path string) (io.ReadCloser, int64, error) {
	obs, err := s.objectStore(actx)
	if err != nil {
		return nil, 0, err
	}
	far, cancel := context.WithTimeout(ctx, 24*time.Hour)
	rctx := &pollContext{Context: far}
	stop := context.AfterFunc(actx, cancel)
	obj, err := obs.Get(rctx, path)
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
	rctx.polling.Store(true)
	return &idleReader{r: obj, ctx: rctx, cancel: cancel}, int64(info.Size), nil
}

// readPoll is how long one wait of a blob read lasts before it looks
// whether its context ended or the read has idled too long.
const readPoll = 100 * time.Millisecond

// pollContext is the context of an object read. The object store's
// reader waits for each chunk until its context's deadline, and nothing
// else wakes it: a cancelled context stops the chunks coming but leaves
// a waiting read waiting. So once polling, the deadline is always at
// most readPoll away; a wait that reaches it returns a timeout (and no
// bytes) while the context lives, and the reader waits again.
type pollContext struct {
	context.Context
	polling atomic.Bool
}

// Deadline is the parent's, or readPoll from now once polling.
func (c *pollContext) Deadline() (time.Time, bool) {
	d, ok := c.Context.Deadline()
	if c.polling.Load() {
		if p := time.Now().Add(readPoll); !ok || p.Before(d) {
			return p, true
		}
	}
	return d, ok
}

// idleReader reads an object, failing a Read that waits longer than
// BlobIdleTimeout for bytes (time the caller spends between reads does
// not count) and one whose context ends.
type idleReader struct {
	r      jetstream.ObjectResult
	ctx    context.Context
	cancel context.CancelFunc
}

func (ir *idleReader) Read(p []byte) (int, error) {
	start := time.Now()
	for {
		n, err := ir.r.Read(p)
		if n > 0 || err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		// A poll that found nothing.
		if err := ir.ctx.Err(); err != nil {
			return 0, err
		}
		if time.Since(start) >= BlobIdleTimeout {
			return 0, fmt.Errorf("no data for %s: the store stopped sending", BlobIdleTimeout)
		}
	}
}

func (ir *idleReader) Close() error {
	ir.cancel()
	return ir.r.Close()
}
