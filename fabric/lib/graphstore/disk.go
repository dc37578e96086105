package graphstore

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/fabricops/fabric/fabric/lib/budget"
)

// The store's disk fence. A tenant's graph store counts against its
// storage limit (SetStorageLimit) and leaves the disk MinFreeDisk free:
// each write is checked against both before it is written, and refused
// in one line. Should the disk fill all the same (another writer took
// the space), Pebble's fatal errors do not end the process: the failing
// write returns its error, and the store takes no writes (it still
// answers reads) until it is opened again.
var (
	// ErrStorageLimit is wrapped by the refusal of a write that would
	// take the store past the tenant's storage limit.
	ErrStorageLimit = errors.New("storage limit exceeded")
	// ErrDiskFull is wrapped by the refusal of a write the disk has no
	// room for, and by every write after the disk failed one.
	ErrDiskFull = errors.New("disk full")
)

// MinFreeDisk is the space a write must leave free on the store's disk
// (above twice the write's own size: Pebble writes it to its log, then
// to a table when the memtable is flushed).
const MinFreeDisk = 4 << 20

// usageRefresh bounds how often the store's size is read from Pebble;
// in between, the bytes written since are added to the last figure.
const usageRefresh = 250 * time.Millisecond

// diskFence is the state of a store's disk fence, shared with the Pebble
// logger that reports fatal errors into it.
type diskFence struct {
	dir     string
	limit   atomic.Int64 // the tenant's storage limit for the store (0: none)
	minFree int64

	mu      sync.Mutex
	usage   int64 // the store's size on disk as last read
	read    time.Time
	written int64 // bytes written since
	failed  error // the fatal write error, after which writes are refused
}

// SetStorageLimit sets how many bytes the store may take on disk (0: no
// limit but the disk's): writes that would pass it are refused with
// ErrStorageLimit. The graph pod sets it from the tenant's JetStream
// limits, less what JetStream holds.
func (s *Store) SetStorageLimit(n int64) { s.fence.limit.Store(max(n, 0)) }

// StorageLimit returns the store's storage limit (0: none).
func (s *Store) StorageLimit() int64 { return s.fence.limit.Load() }

// DiskUsage returns the bytes the store takes on disk (its log, tables
// and manifest).
func (s *Store) DiskUsage() int64 { return int64(s.db.Metrics().DiskSpaceUsage()) }

// Failed returns the write error after which the store takes no writes,
// or nil.
func (s *Store) Failed() error {
	s.fence.mu.Lock()
	defer s.fence.mu.Unlock()
	return s.fence.failed
}

// checkSpace refuses a write of n bytes that would pass the storage
// limit or leave the disk less than minFree free. Deletions (n 0) pass
// unless the store failed: they are what frees space.
func (s *Store) checkSpace(n int64) error {
	f := s.fence
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed != nil {
		return f.failed
	}
	if n <= 0 {
		return nil
	}
	if limit := f.limit.Load(); limit > 0 {
		if time.Since(f.read) > usageRefresh {
			f.usage, f.read, f.written = int64(s.db.Metrics().DiskSpaceUsage()), time.Now(), 0
		}
		if used := f.usage + f.written; used+n > limit {
			return fmt.Errorf("%w: the tenant's graph store takes %s on disk and a write of %s would pass its storage limit of %s",
				ErrStorageLimit, budget.Bytes(used), budget.Bytes(n), budget.Bytes(limit))
		}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(f.dir, &st); err == nil {
		free := int64(st.Bavail) * int64(st.Bsize)
		if free-2*n < f.minFree {
			return fmt.Errorf("%w: the graph store's disk has %s free and a write of %s must leave %s",
				ErrDiskFull, budget.Bytes(free), budget.Bytes(n), budget.Bytes(f.minFree))
		}
	}
	f.written += n
	return nil
}

// fail records the write error that ends the store's writes (the first).
func (f *diskFence) fail(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed == nil {
		what := ErrDiskFull
		if !errors.Is(err, syscall.ENOSPC) && !strings.Contains(err.Error(), "no space left") {
			what = errors.New("write failed")
		}
		f.failed = fmt.Errorf("%w: the graph store could not write (%v) and takes no more writes until the fabric restarts; its data is kept", what, oneLine(err))
	}
	return f.failed
}

// oneLine keeps the first line of an error's text.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// fatal is what a Pebble fatal error panics with in a guarded call.
type fatal struct{ err error }

// guarded runs a Pebble write (see recoverFatal) unless the store
// failed; a fatal error, or a full disk, ends the store's writes.
func (s *Store) guarded(fn func() error) error {
	if err := s.Failed(); err != nil {
		return err
	}
	err := s.recoverFatal(fn)
	if err != nil && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EIO)) {
		err = s.fence.fail(err)
	}
	return err
}

// recoverFatal runs a call into Pebble. Pebble reports some write errors
// by calling its logger's Fatalf (a commit its log could not take),
// whose default ends the process, or by panicking (a record its log
// could not write): the store's logger panics with the error instead
// when recoverFatal is on its goroutine's stack, and recoverFatal turns
// either panic into the store's failure, returned as the error. Pebble
// may hold its commit lock after such a panic: the store takes no more
// writes (they would wait for it) and answers reads.
func (s *Store) recoverFatal(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			cause, ok := r.(error)
			if f, isFatal := r.(fatal); isFatal {
				cause = f.err
			} else if !ok {
				cause = fmt.Errorf("%v", r)
			}
			err = s.fence.fail(cause)
		}
	}()
	return fn()
}

// storeLogger keeps Pebble's progress notes (recovery, compactions) out
// of the pod's log, passes its errors on, and turns its fatal errors
// into a failed store rather than the end of the process.
type storeLogger struct{ fence *diskFence }

func (storeLogger) Infof(string, ...any) {}
func (storeLogger) Errorf(format string, args ...any) {
	log.Printf("graph store: "+format, args...)
}

// Fatalf records the error; in a guarded call it panics (recoverFatal
// recovers it), elsewhere (Pebble's background flushes and compactions,
// which return the error after reporting it) it returns.
func (l storeLogger) Fatalf(format string, args ...any) {
	err := fmt.Errorf(format, args...)
	err = l.fence.fail(err)
	log.Printf("graph store in %s: %v", l.fence.dir, err)
	if inGuardedCall() {
		panic(fatal{err})
	}
}

// inGuardedCall reports whether Store.recoverFatal is on this
// goroutine's stack.
func inGuardedCall() bool {
	pcs := make([]uintptr, 128)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, "graphstore.(*Store).recoverFatal") {
			return true
		}
		if !more {
			return false
		}
	}
}

// privateFS is the file system of the store: Pebble's, with every file
// it creates readable by the owner only (0600) and directories 0700, as
// everything the fabric writes.
type privateFS struct{ vfs.FS }

func (p privateFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := p.FS.Create(name, c)
	if err == nil {
		_ = os.Chmod(name, 0o600)
	}
	return f, err
}

func (p privateFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := p.FS.OpenReadWrite(name, c, opts...)
	if err == nil {
		_ = os.Chmod(name, 0o600)
	}
	return f, err
}

func (p privateFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := p.FS.ReuseForWrite(oldname, newname, c)
	if err == nil {
		_ = os.Chmod(newname, 0o600)
	}
	return f, err
}

func (p privateFS) Lock(name string) (io.Closer, error) {
	c, err := p.FS.Lock(name)
	if err == nil {
		_ = os.Chmod(name, 0o600)
	}
	return c, err
}

func (p privateFS) MkdirAll(dir string, _ os.FileMode) error {
	if err := p.FS.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}

// Unwrap returns Pebble's file system.
func (p privateFS) Unwrap() vfs.FS { return p.FS }

// syncSet is a synced write of one key outside document batches.
func (s *Store) syncSet(key, value []byte) error {
	if err := s.checkSpace(int64(len(key) + len(value))); err != nil {
		return err
	}
	return s.guarded(func() error { return s.db.Set(key, value, pebble.Sync) })
}

// commitBatch commits synced a batch the space check does not hold back
// (deletions, which free space; counter deltas of a few bytes): only a
// failed store refuses it.
func (s *Store) commitBatch(b *pebble.Batch) error {
	if err := s.checkSpace(0); err != nil {
		return err
	}
	return s.guarded(func() error { return b.Commit(pebble.Sync) })
}

// closeTimeout bounds closing a store whose disk failed: Pebble's commit
// pipeline may be stuck after a fatal error, and the process must stop.
const closeTimeout = 2 * time.Second

// closeDB closes Pebble; after a failure it gives up waiting after
// closeTimeout (what was acknowledged is in the log, replayed at the
// next open).
func (s *Store) closeDB() error {
	if s.Failed() == nil {
		return s.recoverFatal(s.db.Close)
	}
	done := make(chan error, 1)
	go func() {
		done <- budget.Guard(func() error { return s.recoverFatal(s.db.Close) })
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(closeTimeout):
		return fmt.Errorf("the graph store in %s did not close within %s after its disk failed", s.fence.dir, closeTimeout)
	}
}
