package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// dataLibraries are what the lean client must not link: their package
// init would slow every start.
var dataLibraries = []string{"github.com/apache/arrow-go/", "github.com/xuri/excelize/", "google.golang.org/grpc", "google.golang.org/protobuf",
	module + "fabric/lib/frame", module + "fabric/lib/engine", module + "fabric/lib/lazy", module + "builtins/data",
	"github.com/charmbracelet/", module + "fabric/lib/viewer"}

// TestLeanClientLinksNoDataLibrary: the lean build (cmd/client) links none
// of the data libraries and no pod; the data build (cmd/client-data) no
// pod either. (CFXQL's parser and dict evaluator are in the lean build;
// its Arrow evaluator is not.)
func TestLeanClientLinksNoDataLibrary(t *testing.T) {
	for _, p := range goList(t, "-deps", "./cmd/client") {
		for _, f := range append(forbidden, dataLibraries...) {
			if strings.HasPrefix(p.ImportPath, f) {
				t.Errorf("the lean client links %s", p.ImportPath)
			}
		}
	}
	for _, p := range goList(t, "-deps", "./cmd/client-data") {
		for _, f := range forbidden {
			if strings.HasPrefix(p.ImportPath, f) {
				t.Errorf("the data client links %s", p.ImportPath)
			}
		}
	}
}

// TestNoLeanTag: the two builds are two main packages, not one package
// compiled two ways: no Go file of the module is built only with or
// without a "lean" tag.
func TestNoLeanTag(t *testing.T) {
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.SplitN(string(data), "\n", 20) {
			if strings.HasPrefix(line, "//go:build") && strings.Contains(line, "lean") {
				t.Errorf("%s: %s", path, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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
	if out, _, code := client(t, home, "-c", `print(len(pods()))`); code != 0 || out != "7\n" {
		t.Fatalf("-c with pods: %d %q", code, out)
	}
}

// TestRecordCommandsRunInOneProcess: commands that only read records
// run in the lean client's own process; one that reads a table is handed
// to the data build, once. A client-data beside a copy of the lean client
// counts its starts.
func TestRecordCommandsRunInOneProcess(t *testing.T) {
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
	bin := t.TempDir()
	lean := filepath.Join(bin, "client")
	data, err := os.ReadFile(buildClient(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lean, data, 0o755); err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(dir, "starts")
	counter := "#!/bin/sh\necho \"$*\" >> " + starts + "\n"
	if err := os.WriteFile(filepath.Join(bin, "client-data"), []byte(counter), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		cmd := exec.Command(lean, args...)
		cmd.Env = []string{"FABRIC_HOME=" + home, "PATH=/usr/bin:/bin", "HOME=" + dir, "NO_COLOR=1"}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"dataset", "list"}, "hosts"},
		{[]string{"dataset", "list", "--json"}, `"name": "hosts"`},
		{[]string{"dataset", "meta", "--name", "hosts"}, `"num_rows": 2`},
		{[]string{"pipeline", "list"}, ""},
		{[]string{"jobs"}, ""},
		{[]string{"pods"}, "worker"},
	} {
		if out, code := run(tc.args...); code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d\n%s", tc.args, code, out)
		}
	}
	// A copy in the stored format is the lean function's (command()'s lean).
	pq := filepath.Join(dir, "out.parquet")
	if out, code := run("dataset", "get", "--name", "hosts", "--tofile", pq); code != 0 || out != "wrote 2 rows to "+pq+"\n" {
		t.Errorf("dataset get --tofile .parquet: exit %d %q", code, out)
	}
	if got, _ := os.ReadFile(starts); len(got) != 0 {
		t.Fatalf("record commands started the data build: %q", got)
	}
	if out, code := run("dataset", "get", "--name", "hosts"); code != 0 {
		t.Fatalf("dataset get through the counter: %d %q", code, out)
	}
	if got, _ := os.ReadFile(starts); string(got) != "dataset get --name hosts\n" {
		t.Fatalf("dataset get started the data build with %q, want once", got)
	}

	// A pipeline run whose output is small prints it from the job's
	// record, in this process; written to a file, the output is the
	// output command's, handed to the data build once the job ran.
	os.Remove(starts)
	pl := filepath.Join(dir, "hosts.pipeline")
	if err := os.WriteFile(pl, []byte("@dm:recall name = 'hosts'\n --> *dm:filter cpu > 50 get host, cpu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := run("run-get-output", "--file", pl, "--format", "csv"); code != 0 || !strings.HasSuffix(out, "host,cpu\nweb-1,93.5\n") {
		t.Fatalf("run-get-output: exit %d\n%s", code, out)
	}
	if got, _ := os.ReadFile(starts); len(got) != 0 {
		t.Fatalf("run-get-output of a small output started the data build: %q", got)
	}
	if out, code := run("run-get-output", "--file", pl, "--tofile", filepath.Join(dir, "out.csv")); code != 0 {
		t.Fatalf("run-get-output --tofile through the counter: %d %q", code, out)
	}
	want := regexp.MustCompile(`^output --jobid [0-9a-f]{32} --format auto --tofile ` + regexp.QuoteMeta(filepath.Join(dir, "out.csv")) + "\n$")
	if got, _ := os.ReadFile(starts); !want.Match(got) {
		t.Fatalf("run-get-output --tofile started the data build with %q, want %s", got, want)
	}
}
