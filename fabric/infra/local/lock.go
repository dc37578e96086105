package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Two locks in $FABRIC_HOME/local, both flock(2) locks that the kernel
// drops when their process dies, so a killed process leaves no stale lock:
//
//   - start.lock serialises starting the local fabric: commands started
//     at once against a stopped fabric queue on it, the first starts the
//     fabric and the others find it running.
//   - store.lock is held by the running fabric for its whole life: no
//     second server ever opens the same JetStream store.
const (
	startLock = "start.lock"
	storeLock = "store.lock"
)

// Lock is a held lock file.
type Lock struct{ f *os.File }

// Unlock releases the lock.
func (l *Lock) Unlock() {
	if l != nil && l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}

// ErrLocked is returned by TryLockStore when another process holds it.
var ErrLocked = errors.New("locked by another process")

// lockFile takes an exclusive lock on path, waiting at most timeout (0:
// not at all).
func lockFile(path string, timeout time.Duration) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &Lock{f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %v", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, ErrLocked
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// LockStart waits (at most timeout) for the right to start the local
// fabric.
func LockStart(home string, timeout time.Duration) (*Lock, error) {
	l, err := lockFile(filepath.Join(Dir(home), startLock), timeout)
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("timed out after %s waiting for another command that starts the local fabric (%s)", timeout, filepath.Join(Dir(home), startLock))
	}
	return l, err
}

// TryLockStore takes the lock of the local fabric's JetStream store, or
// fails with ErrLocked when a running fabric holds it.
func TryLockStore(home string) (*Lock, error) {
	return lockFile(filepath.Join(Dir(home), storeLock), 0)
}
