package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeanClientLinksNoDataLibrary: the client built with the lean tag
// (bin/client) links none of the data libraries, whose package init would
// slow every start. (CFXQL's parser and dict evaluator are in it; its
// Arrow kernels are not.)
func TestLeanClientLinksNoDataLibrary(t *testing.T) {
	for _, p := range goList(t, "-tags", "lean", "-deps", "./cmd/client") {
		for _, f := range append(forbidden, "github.com/apache/arrow-go/", "github.com/xuri/excelize/", "google.golang.org/grpc", "google.golang.org/protobuf", module+"fabric/lib/frame", module+"fabric/lib/engine") {
			if strings.HasPrefix(p.ImportPath, f) {
				t.Errorf("the lean client links %s", p.ImportPath)
			}
		}
	}
}

// TestLeanAndFullAgree: the lean client lists and documents every command
// as the full one does, and hands what needs data over to it.
func TestLeanAndFullAgree(t *testing.T) {
	lean := buildClient(t)
	full := filepath.Join(filepath.Dir(lean), "client-data")
	home := t.TempDir()
	t.Cleanup(func() { client(t, home, "fabric", "down") })
	runWith := func(bin string, args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "FABRIC_HOME="+home, "NO_COLOR=1")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	help := runWith(lean, "help")
	if want := runWith(full, "help"); help != want {
		t.Fatalf("help differs:\nlean:\n%s\nfull:\n%s", help, want)
	}
	n := 0
	for _, line := range strings.Split(help, "\n") {
		f := strings.Fields(line)
		if !strings.HasPrefix(line, "  ") || len(f) < 2 {
			continue
		}
		args := []string{f[0]}
		if !strings.HasPrefix(f[1], strings.ToUpper(f[1][:1])) && len(f) > 2 && !strings.Contains(f[1], ".") {
			args = append(args, f[1]) // "group sub"
		}
		args = append(args, "-h")
		if got, want := runWith(lean, args...), runWith(full, args...); got != want {
			t.Errorf("%v differs:\nlean:\n%s\nfull:\n%s", args, got, want)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("compared %d commands' help, want them all:\n%s", n, help)
	}

	// A data command and a script that uses a data module run, through
	// the full client.
	csv := filepath.Join(t.TempDir(), "hosts.csv")
	if err := os.WriteFile(csv, []byte("host,cpu\nweb-1,93.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := client(t, home, "dataset", "add", "--name", "hosts", "--file", csv); code != 0 {
		t.Fatalf("dataset add: %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := client(t, home, "-c", `print(dataset.get("hosts").rows())`); code != 0 || out != `[{"host": "web-1", "cpu": 93.5}]`+"\n" {
		t.Fatalf("-c with dataset: %d %q %s", code, out, errOut)
	}
	if out, _, code := client(t, home, "-c", `print(len(pods()))`); code != 0 || out != "6\n" {
		t.Fatalf("-c with pods: %d %q", code, out)
	}
}

// TestLeanCopiesStoredBytes: the lean client serves "dataset get --tofile"
// in the stored format itself (a copy of the stored file, with no full
// client beside it), and hands a conversion to the full client, which a
// lone lean client does not have.
func TestLeanCopiesStoredBytes(t *testing.T) {
	home := t.TempDir()
	t.Cleanup(func() { client(t, home, "fabric", "down") })
	dir := t.TempDir()
	csv := filepath.Join(dir, "hosts.csv")
	if err := os.WriteFile(csv, []byte("host,cpu\nweb-1,93.5\nweb-2,12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := client(t, home, "dataset", "add", "--name", "hosts", "--file", csv); code != 0 {
		t.Fatalf("dataset add: %d\n%s%s", code, out, errOut)
	}
	lone := filepath.Join(t.TempDir(), "client")
	data, err := os.ReadFile(buildClient(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		cmd := exec.Command(lone, args...)
		cmd.Env = []string{"FABRIC_HOME=" + home, "PATH=/usr/bin:/bin", "HOME=" + dir, "NO_COLOR=1"}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	pq := filepath.Join(dir, "out.parquet")
	if out, code := run("dataset", "get", "--name", "hosts", "--tofile", pq); code != 0 || out != "wrote 2 rows to "+pq+"\n" {
		t.Fatalf("lean get to parquet: %d %q", code, out)
	}
	if got, _, code := client(t, home, "-c", `print(frame.read(sys.argv[1]).rows())`, pq); code != 0 || got != `[{"host": "web-1", "cpu": 93.5}, {"host": "web-2", "cpu": 12.0}]`+"\n" {
		t.Fatalf("the copied file reads %q", got)
	}
	if out, code := run("dataset", "get", "--name", "hosts", "--tofile", filepath.Join(dir, "out.csv")); code == 0 || !strings.Contains(out, "client-data") {
		t.Fatalf("a conversion by a lone lean client: %d %q, want a hand-off that finds no client-data", code, out)
	}
}
