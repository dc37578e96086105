package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writeCSV writes a CSV of n rows.
func writeCSV(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "host,cpu")
	for i := range n {
		fmt.Fprintf(w, "host-%d,%d\n", i, i%100)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestFilesAsTheUserMeans: --tofile writes through a symbolic link and
// into a FIFO; a reader of stdout that goes away early (| head) ends the
// command quietly, with no temporary file left behind.
func TestFilesAsTheUserMeans(t *testing.T) {
	home := t.TempDir()
	t.Cleanup(func() { client(t, home, "fabric", "down") })
	dir := t.TempDir()
	csv := filepath.Join(dir, "big.csv")
	writeCSV(t, csv, 200_000)
	if _, errOut, code := client(t, home, "dataset", "add", "--name", "big", "--file", csv); code != 0 {
		t.Fatalf("add: %s", errOut)
	}

	// A symbolic link stays a link; its target gets the data.
	target := filepath.Join(dir, "real.csv")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := client(t, home, "dataset", "get", "--name", "big", "--tofile", link); code != 0 {
		t.Fatalf("get --tofile link: %s", errOut)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if st, _ := os.Stat(target); st.Size() < 1000 || st.Mode().Perm() != 0o600 {
		t.Fatalf("the link's target: %v", st)
	}

	// A FIFO is written in place, for its reader.
	fifo := filepath.Join(dir, "pipe.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	lines := make(chan int)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			lines <- -1
			return
		}
		defer f.Close()
		n := 0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			n++
		}
		lines <- n
	}()
	if _, errOut, code := client(t, home, "dataset", "get", "--name", "big", "--tofile", fifo); code != 0 {
		t.Fatalf("get --tofile fifo: %s", errOut)
	}
	if n := <-lines; n != 200_001 {
		t.Fatalf("the FIFO's reader got %d lines", n)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}

	// | head: the reader goes away after one line.
	tmp := t.TempDir()
	cmd := exec.Command(buildClient(t), "dataset", "get", "--name", "big", "--format", "csv")
	cmd.Env = append(os.Environ(), "FABRIC_HOME="+home, "TMPDIR="+tmp)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, _ := bufio.NewReader(stdout).ReadString('\n')
	stdout.Close()
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if first != "host,cpu\n" || !ok || ee.ExitCode() != 141 || stderr.String() != "" {
		t.Fatalf("| head: first line %q, %v, stderr %q", first, err, stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}
