package local

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A fabric killed with SIGKILL leaves its state file behind, and for a
// moment (or for good, when nobody reaps it) a process by its pid: a
// zombie, or one the kernel is still tearing down. Neither runs the
// fabric. A pid can also be reused by another program (ClearStale).

// pfExiting is the kernel's PF_EXITING task flag: the process is ending.
const pfExiting = 0x4

// ending reports whether the process pid is a zombie or ending, from
// /proc/PID/stat (state, field 3; flags, field 9). Without /proc it
// reports false.
func ending(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The command (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 7 {
		return false
	}
	switch fields[0][0] {
	case 'Z', 'X', 'x':
		return true
	}
	flags, err := strconv.ParseUint(string(fields[6]), 10, 64)
	return err == nil && flags&pfExiting != 0
}

// StoreWait bounds how long Up waits for the store lock of a fabric that
// was killed to be released as its process ends.
const StoreWait = 10 * time.Second

// ClearStale removes the state of a fabric whose pid is another
// program's now (reused after the fabric died): the state records the
// fabricd that wrote it (State.Build), and /proc/PID/exe names the
// program of the pid. It returns whether it did (callers hold the start
// lock). Without the record, or without /proc, it leaves the state.
func ClearStale(home string, st *State) bool {
	if st.Build == "" {
		return false
	}
	path := st.Build
	for range 2 { // path:size:mtime
		if i := strings.LastIndexByte(path, ':'); i >= 0 {
			path = path[:i]
		}
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(st.PID) + "/exe")
	if err != nil {
		return false
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if exe == path {
		return false
	}
	RemoveState(home)
	return true
}

// WaitStore waits until no process holds the store lock (the process of
// a killed fabric holds it until it has ended), at most StoreWait.
func WaitStore(home string) error {
	l, err := lockFile(filepath.Join(Dir(home), storeLock), StoreWait)
	if errors.Is(err, ErrLocked) {
		return fmt.Errorf("cannot start the local fabric: another process has held its store lock %s for %s (a fabricd local run by hand?)", filepath.Join(Dir(home), storeLock), StoreWait)
	}
	if err != nil {
		return err
	}
	l.Unlock()
	return nil
}

// MakePrivate makes every file under the local fabric's directory
// readable and writable by its owner only (0600, 0700 for directories):
// files an older fabric wrote, or a library, with wider modes.
func MakePrivate(home string) error {
	return filepath.WalkDir(Dir(home), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		want := info.Mode().Perm() &^ 0o077
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			if err := os.Chmod(path, want); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	})
}
