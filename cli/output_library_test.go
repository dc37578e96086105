package cli

import (
	"archive/zip"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/libraries"
)

// writeWheel writes a .whl (a zip) of files at dir/name.
func writeWheel(t *testing.T, dir, name string, files map[string]string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for n, body := range files {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestOutputLibraries: a library through its states on two workers:
// uploaded (NOT INSTALLED), installed (STAGED), the workers restarted (UP
// TO DATE), a newer version uploaded (PATCH AVAILABLE); with a worker
// stopped, list counts its missing answer and fails.
func TestOutputLibraries(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	s := newSession(t, "library-upload", "library-list", "library-install", "library-delete")
	workers := f.PodsOf("a", api.Worker)
	if len(workers) != 2 {
		t.Fatalf("workers: %v", workers)
	}
	s.vars["W1"], s.vars["W2"] = workers[0], workers[1]
	host, _ := os.Hostname()
	s.sc.Literal(host, "<HOST>")
	dir := s.vars["DIR"]
	writeBundle(t, dir, "fabric_netutils-1.0.0.tar.gz", tarFile{name: "fabric_netutils-1.0.0/net/ip.star", body: "def version():\n    return \"1.0.0\"\n"})
	writeWheel(t, dir, "fabric_netutils-1.1.0-py3-none-any.whl", map[string]string{"net/ip.star": "def version():\n    return \"1.1.0\"\n"})
	writeBundle(t, dir, "netutils-1.0.0.tar.gz", tarFile{name: "a.star", body: "x = 1\n"})
	writeBundle(t, dir, "fabric_netutils.tar.gz", tarFile{name: "a.star", body: "x = 1\n"})
	writeBundle(t, dir, "site_evil-1.0.tar.gz", tarFile{name: "../escape.star", body: "x = 1\n"})
	write(t, dir, "site_plain-1.0.tar.gz", "not an archive\n")
	restart := func(id string) step { return step{cmd: "pod-controller restart --pod-id " + id, setup: true} }

	s.steps(
		step{cmd: "library upload --file $DIR/fabric_netutils-1.0.0.tar.gz"},
		step{cmd: "library upload --file $DIR/netutils-1.0.0.tar.gz", code: 1},
		step{cmd: "library upload --file $DIR/fabric_netutils.tar.gz", code: 1},
		step{cmd: "library upload --file $DIR/site_evil-1.0.tar.gz", code: 1},
		step{cmd: "library upload --file $DIR/site_plain-1.0.tar.gz", code: 1},
		step{cmd: "library upload --file $DIR/fabric_nosuch-1.0.tar.gz", code: 1},

		step{cmd: "library list --pod-type worker --site .*"},
		step{cmd: "library list --pod-type worker", code: 2},
		step{cmd: "library list --pod-type worker --site elsewhere", code: 1},

		step{cmd: "library install --libraries fabric_netutils --pod-type worker --site local"},
		step{cmd: "library install --libraries fabric_nosuch --pod-type worker --site local", code: 1},
		step{cmd: "library install --libraries all --pod-type worker", code: 2},
		step{cmd: "library list --pod-type worker --pod-ids $W1 $W2"},

		// Effective after the restart; the sweep keeps library files.
		restart("$W1"), restart("$W2"),
		step{cmd: "fabric gc --grace 0s", setup: true},
		step{cmd: "library list --pod-type worker --site local --json"},
		step{cmd: "library install --libraries all --pod-type worker --site local"},

		step{cmd: "library upload --file $DIR/fabric_netutils-1.1.0-py3-none-any.whl"},
		step{cmd: "library list --pod-type worker --site local --ql-query \"site_name = 'local'\""},
		step{cmd: "library list --pod-type worker --site local --ql-query \"site_name = 'elsewhere'\"", code: 1},
		step{cmd: "library list --pod-type worker --pod-ids $W1 --ql-query \"site_name = \"", code: 1},
		step{cmd: "library install --libraries all --pod-type worker --site local --json"},
		step{cmd: "library list --pod-type worker --site local"},

		step{cmd: "library delete --libraries fabric_netutils-1.0.0.tar.gz"},
		step{cmd: "library delete --libraries fabric_netutils-1.0.0.tar.gz", code: 1},

		step{do: func() {
			if err := f.Runners["a"].StopPod(workers[1]); err != nil {
				t.Fatal(err)
			}
		}},
		step{cmd: "library list --pod-type worker --pod-ids $W1 $W2", code: 1},
	)

	// What the runtime will load: the installed 1.0.0's modules, the
	// sdist's top directory taken off.
	fsys, refused, err := libraries.Installed(filepath.Join(f.DataDir("a"), "packages", workers[0]))
	if err != nil || len(refused) > 0 {
		t.Fatal(err, refused)
	}
	body, err := fs.ReadFile(fsys["fabric_netutils"], "net/ip.star")
	if err != nil || string(body) != "def version():\n    return \"1.0.0\"\n" {
		t.Errorf("net/ip.star of the installed library: %q, %v", body, err)
	}
}

// TestLibrariesWithoutAPIServer: with no api-server to ask the pods, the
// client asks them itself.
func TestLibrariesWithoutAPIServer(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.Worker}})
	dir := t.TempDir()
	path := writeBundle(t, dir, "site_tools-2.0.tar.gz", tarFile{name: "tools.star", body: "x = 1\n"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"library", "upload", "--file", path}, "uploaded library site_tools version 2.0"},
		{[]string{"library", "install", "--libraries", "site_tools", "--pod-type", "worker", "--site", ".*"}, "Received responses from 1/1 worker pod(s)"},
		{[]string{"library-list", "--pod-type", "worker", "--site", "local", "--wait", "5"}, "Received responses from 1/1 worker pod(s)"},
	} {
		out, errOut, code := run(t, "", c.args...)
		if code != 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("client %s: exit %d, want %q\n%s%s", strings.Join(c.args, " "), code, c.want, out, errOut)
		}
		if c.args[0] == "library-list" && !strings.Contains(out, "STAGED") {
			t.Errorf("library-list: %s", out)
		}
	}
}
