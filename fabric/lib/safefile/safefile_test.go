package safefile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/safefile"
)

func write(path, s string) error {
	return safefile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestRegularFileReplacedAtomically(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := write(p, "new"); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if read(t, p) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("%q %v", read(t, p), st.Mode())
	}
	// A failure keeps the old content and leaves no temporary file.
	err := safefile.Write(p, func(w io.Writer) error { io.WriteString(w, "partial"); return errors.New("boom") })
	if err == nil || err.Error() != "boom" || read(t, p) != "new" {
		t.Fatalf("%v %q", err, read(t, p))
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("left behind: %v", names)
	}
}

func TestNewFileAndMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := write(filepath.Join(dir, "a.txt"), "x"); err != nil || read(t, filepath.Join(dir, "a.txt")) != "x" {
		t.Fatal(err)
	}
	err := write(filepath.Join(dir, "no", "such", "a.txt"), "x")
	if err == nil || !strings.Contains(err.Error(), "its directory "+filepath.Join(dir, "no", "such")+" does not exist") {
		t.Fatalf("missing parent: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Fatal("the missing directory was created")
	}
	if err := write(dir, "x"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("directory: %v", err)
	}
}

func TestSymlinkWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.csv")
	link := filepath.Join(dir, "link.csv")
	os.WriteFile(target, []byte("old"), 0o640)
	if err := os.Symlink("real.csv", link); err != nil {
		t.Fatal(err)
	}
	if err := write(link, "new"); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if st, _ := os.Stat(target); read(t, target) != "new" || st.Mode().Perm() != 0o640 {
		t.Fatalf("target: %q %v", read(t, target), st.Mode())
	}
	// A dangling link: the file it names is created.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "made.csv"), dangling)
	if err := write(dangling, "made"); err != nil || read(t, filepath.Join(dir, "made.csv")) != "made" {
		t.Fatalf("dangling: %v", err)
	}
	// A loop of links is refused.
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	if err := write(filepath.Join(dir, "loop1"), "x"); err == nil {
		t.Fatal("a loop of links was written")
	}
}

func TestFIFOWrittenDirectly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := write(fifo, "through the pipe"); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("read %q", s)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("left behind: %v", names)
	}
}
