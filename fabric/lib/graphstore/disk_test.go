package graphstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size (as mount's -o size=) on a new
// directory and unmounts it when the test ends; it skips the test when
// it cannot mount (not root, no mount).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (needs root): %v: %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		// Lazily: a store whose disk failed keeps its files open in this
		// process (until it ends, as the fabric's does).
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fillDisk writes a file in dir until the disk is full, or until it
// leaves about leave bytes free; it returns the file's path.
func fillDisk(t *testing.T, dir string, leave int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		free := freeSpace(t, dir)
		if free <= leave {
			return path
		}
		n := min(int64(len(chunk)), free-leave)
		if _, err := f.Write(chunk[:n]); err != nil {
			return path // full
		}
	}
}

func freeSpace(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// docs returns n documents of about size bytes each, keys prefix-i.
func docs(prefix string, n, size int) []any {
	out := make([]any, n)
	pad := strings.Repeat("x", size)
	for i := range out {
		out[i] = map[string]any{"_key": fmt.Sprintf("%s-%d", prefix, i), "pad": pad}
	}
	return out
}

// TestHostileGraphStoreFillsDisk: a write the disk has no room for is
// refused in one line before it is written, the store keeps answering
// reads and takes writes again once space is freed; when the disk fills
// under a write all the same (the space check off), Pebble's fatal
// commit error does not end the process: the write fails in one line,
// the store refuses writes and answers reads, and once space is back a
// reopened store has every write it acknowledged.
func TestHostileGraphStoreFillsDisk(t *testing.T) {
	tests := []struct {
		name  string
		check bool // the space check on
	}{
		{"refused before the write", true},
		{"disk fills under the write", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			disk := mountTmpfs(t, "24m")
			dir := filepath.Join(disk, "store")
			s := openCollectionIn(t, dir)
			if _, err := s.Insert("d", "c", docs("before", 100, 100), OverwriteConflict, true, true); err != nil {
				t.Fatal(err)
			}
			if !tc.check {
				s.fence.minFree = -1 << 40
			}
			filler := fillDisk(t, disk, 0)
			var err error
			acked := []string{"before-0", "before-99"}
			for i := 0; i < 20 && err == nil; i++ { // Pebble may have room in its log file
				prefix := fmt.Sprintf("full%d", i)
				if _, err = s.Insert("d", "c", docs(prefix, 64, 16<<10), OverwriteConflict, true, true); err == nil {
					acked = append(acked, prefix+"-63")
				}
			}
			if !errors.Is(err, ErrDiskFull) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("a write to a full disk: %v; want one line wrapping ErrDiskFull", err)
			}
			t.Logf("the write's error: %v", err)
			if _, err := s.Document("d", "c", "before-7"); err != nil {
				t.Fatalf("a read with the disk full: %v", err)
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			_, err = s.Insert("d", "c", docs("after", 10, 100), OverwriteConflict, true, true)
			if tc.check {
				if err != nil {
					t.Fatalf("a write once space is freed: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrDiskFull) {
				t.Fatalf("a write to a store whose disk failed: %v; want ErrDiskFull until it is opened again", err)
			}
			if err := s.Close(); err != nil {
				t.Logf("closing the failed store: %v", err)
			}
			// Pebble may keep the store's lock in this process after the
			// failure (a restart of the process drops it): a copy of its
			// files is what a restart opens.
			again := filepath.Join(t.TempDir(), "store")
			if out, err := exec.Command("cp", "-a", dir, again).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v: %s", err, out)
			}
			s2, err := Open(again)
			if err != nil {
				t.Fatalf("reopening once space is freed: %v", err)
			}
			defer s2.Close()
			for _, key := range acked {
				if _, err := s2.Document("d", "c", key); err != nil {
					t.Fatalf("acknowledged document %s after the reopen: %v", key, err)
				}
			}
			if _, err := s2.Insert("d", "c", docs("after", 10, 100), OverwriteConflict, true, true); err != nil {
				t.Fatalf("a write after the reopen: %v", err)
			}
		})
	}
}

// TestHostileGraphStoreStorageLimit: writes that would take the store
// past its storage limit are refused in one line naming the limit; the
// store answers reads, takes deletions, and takes writes again when the
// limit is raised.
func TestHostileGraphStoreStorageLimit(t *testing.T) {
	s := openCollection(t)
	if _, err := s.Insert("d", "c", docs("a", 100, 100), OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	s.SetStorageLimit(s.DiskUsage() + 256<<10)
	var err error
	for i := 0; i < 50 && err == nil; i++ {
		_, err = s.Insert("d", "c", docs(fmt.Sprintf("b%d", i), 64, 1<<10), OverwriteConflict, true, true)
	}
	if !errors.Is(err, ErrStorageLimit) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "storage limit of") {
		t.Fatalf("writing past the storage limit: %v; want one line wrapping ErrStorageLimit", err)
	}
	t.Logf("the write's error: %v", err)
	if _, err := s.Document("d", "c", "a-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remove("d", "c", []any{"a-1"}); err != nil {
		t.Fatalf("a deletion at the limit: %v", err)
	}
	s.SetStorageLimit(0)
	if _, err := s.Insert("d", "c", docs("c", 10, 100), OverwriteConflict, true, true); err != nil {
		t.Fatalf("a write with the limit lifted: %v", err)
	}
}

// TestStoreFilesPrivate: every file and directory of a store is its
// owner's only (0600, 0700), whatever the umask.
func TestStoreFilesPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s := openCollectionIn(t, dir)
	if _, err := s.Insert("d", "c", docs("a", 100, 100), OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	s.Close()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
