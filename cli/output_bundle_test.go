package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/internal/testutil"
)

// tarFile is an entry of a test bundle: a regular file unless typ says
// otherwise (size, when set, is its size in zero bytes instead of body).
type tarFile struct {
	name, body string
	typ        byte
	size       int64
}

// writeBundle writes a .tar.gz of files at dir/name and returns its path.
func writeBundle(t *testing.T, dir, name string, files ...tarFile) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: 0o644, Typeflag: f.typ, Size: int64(len(f.body))}
		if f.typ == 0 {
			h.Typeflag = tar.TypeReg
		}
		if f.size > 0 {
			h.Size = f.size
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
			h.Linkname = f.body
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		body := []byte(f.body)
		if f.size > 0 {
			body = make([]byte, f.size)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The documents of the test bundles.
const (
	bundleAlerts = "@dm:read-stream name = 'events' --> *dm:filter severity is 'err' --> @dm:write-stream name = 'alerts'\n"
	bundleReport = `name: report
description: the last alerts
data:
  sequence:
    - tag: "@dm:recall"
      query: name = 'last-alerts'
    - tag: "@dm:head"
      query: n = 10
`
	bundleSyslog = `id: syslog-service
name: Syslog alerting
category: ingestion
description: Keeps the severe events in an alerts stream
service_pipelines:
  - name: alerts
    label: alerts
    version: "*"
    site: loc.*
action_pipelines:
  - name: report
    label: on-demand
`
	bundleSmall = `{"id": "small", "name": "Small", "enabled": false, "service_pipelines": [{"name": "report"}]}`
	bundleOps   = `name: ops
label: Operations
description: the alerts of the day
dashboard_sections:
  - title: Alerts
    widgets:
      - {widget_type: table, title: Last alerts, stream: alerts}
`
)

// bundleFiles are the files of the full test bundle, inside folder root.
func bundleFiles(root string) []tarFile {
	return []tarFile{
		{name: root, typ: tar.TypeDir},
		{name: root + "README.md", body: "The ops bundle.\n"},
		{name: root + "pipelines/alerts.pipeline", body: bundleAlerts},
		{name: root + "pipelines/report.yaml", body: bundleReport},
		{name: root + "blueprints/syslog.yaml", body: bundleSyslog},
		{name: root + "deployments/small.json", body: bundleSmall},
		{name: root + "dashboards/ops.yaml", body: bundleOps},
		{name: root + "dashboards/.ops.yaml.swp", body: "not a document"},
	}
}

// TestOutputBundle: a bundle deployed (its blueprints naming its own
// pipelines), deployed again (all unchanged), compared after a change,
// deployed by type; refused before anything is written: a bad --type, a
// malformed blueprint, an unknown pipeline, a missing file, a file that
// is not gzip, unsafe or oversized entries, a file outside the folders.
func TestOutputBundle(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	s := newSession(t, "bundle-deploy")
	dir := s.vars["DIR"]
	writeBundle(t, dir, "ops.tar.gz", bundleFiles("ops-bundle/")...)
	changed := bundleFiles("./")
	changed[3].body = strings.Replace(bundleReport, "n = 10", "n = 20", 1)
	changed[6].body = strings.Replace(bundleOps, "label: Operations", "label: Operations (new)", 1)
	writeBundle(t, dir, "changed.tar.gz", changed...)
	writeBundle(t, dir, "malformed.tar.gz",
		tarFile{name: "pipelines/fresh.pipeline", body: "@dm:empty\n"},
		tarFile{name: "blueprints/broken.yaml", body: "id: broken\nname: [unclosed\n"},
		tarFile{name: "dashboards/fresh.yaml", body: "name: fresh\n"})
	writeBundle(t, dir, "unknown.tar.gz",
		tarFile{name: "pipelines/fresh.pipeline", body: "@dm:empty\n"},
		tarFile{name: "blueprints/x.yaml", body: "id: x\nname: x\nservice_pipelines:\n  - {name: fresh}\n  - {name: nope, label: n}\n"})
	writeBundle(t, dir, "dotdot.tar.gz",
		tarFile{name: "dashboards/ok.yaml", body: "name: ok\n"},
		tarFile{name: "dashboards/../../evil.yaml", body: "name: evil\n"})
	writeBundle(t, dir, "absolute.tar.gz", tarFile{name: "/etc/dashboards/x.yaml", body: "name: x\n"})
	writeBundle(t, dir, "link.tar.gz", tarFile{name: "dashboards/x.yaml", typ: tar.TypeSymlink, body: "/etc/passwd"})
	writeBundle(t, dir, "big.tar.gz", tarFile{name: "dashboards/big.yaml", size: client.MaxBundleFile + 1})
	writeBundle(t, dir, "elsewhere.tar.gz", tarFile{name: "dashbaords/x.yaml", body: "name: x\n"}, tarFile{name: "pipelines/p.pipeline", body: "@dm:empty\n"})
	writeBundle(t, dir, "empty.tar.gz", tarFile{name: "README.md", body: "nothing\n"})
	write(t, dir, "plain.tar.gz", "name: not an archive\n")
	testutil.WriteGz(t, filepath.Join(dir, "notar.tar.gz"), strings.Repeat("not a tar archive ", 64))

	show := func(line string) step {
		return step{do: func() {
			args := splitArgs(t, line)
			out, errOut, code := run(t, "", args...)
			s.log("bundle-deploy", "", args, out, errOut, code)
		}}
	}
	s.steps(
		step{cmd: "bundle-deploy --file $DIR/ops.tar.gz"},
		show("deployment status"),
		step{cmd: "bundle-deploy --file $DIR/ops.tar.gz"},
		step{cmd: "bundle-deploy --file $DIR/changed.tar.gz --compare"},
		step{cmd: "bundle-deploy --file $DIR/changed.tar.gz --compare --json --type p,d"},
		step{cmd: "bundle-deploy --file $DIR/changed.tar.gz --type p"},
		step{cmd: "bundle-deploy --file $DIR/changed.tar.gz --compare --type d,b"},
		step{cmd: "bundle-deploy --file $DIR/changed.tar.gz --type p,x", code: 2},
		step{cmd: "bundle-deploy --file $DIR/changed.tar.gz --type ''", code: 2},
		step{cmd: "bundle-deploy", code: 2},

		step{cmd: "bundle-deploy --file $DIR/malformed.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/unknown.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/unknown.tar.gz --type b", code: 1},
		show("pipeline list"),
		show("deployment status"),
		step{cmd: "bundle-deploy --file $DIR/missing.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/plain.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/notar.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/dotdot.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/absolute.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/link.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/big.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/elsewhere.tar.gz", code: 1},
		step{cmd: "bundle-deploy --file $DIR/empty.tar.gz", code: 1},
		show("dashboard list"),
	)
}

// TestBundleDeployLimits: the bundle's files reach the api-server
// through the tenant's object store, so a bundle of several MB (more
// than a message of the fabric holds) deploys; a file over
// client.MaxBundleFile bytes and more files than api.MaxBundleFiles are
// refused in one line, and nothing of theirs is deployed.
// (TestBundleDeployUndo in fabric/pods/apiserver checks the undoing of a
// deployment that fails half-way; TestBundleDeployLimits there the
// api-server's own checks of what is staged.)
func TestBundleDeployLimits(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	dir := t.TempDir()
	var several []tarFile
	total := 0
	for i := range 6 {
		body := fmt.Sprintf("name: big%d\ndescription: %s\n", i, strings.Repeat("x", 800<<10))
		total += len(body)
		several = append(several, tarFile{name: fmt.Sprintf("ops/dashboards/big%d.yaml", i), body: body})
	}
	several = append(several, tarFile{name: "ops/README.md", size: 4 << 20})
	out, errOut, code := run(t, "", "bundle-deploy", "--file", writeBundle(t, dir, "several.tar.gz", several...), "--json")
	if code != 0 || strings.Count(out, `"change": "new"`) != 6 {
		t.Fatalf("bundle-deploy of %d bytes: exit %d %s %s, want 6 dashboards deployed", total, code, out, errOut)
	}

	var many []tarFile
	for i := 0; i <= api.MaxBundleFiles; i++ {
		many = append(many, tarFile{name: fmt.Sprintf("dashboards/d%d.yaml", i), body: fmt.Sprintf("name: d%d\n", i)})
	}
	manyPath := writeBundle(t, dir, "many.tar.gz", many...)
	hugePath := writeBundle(t, dir, "huge.tar.gz", tarFile{name: "dashboards/ok.yaml", body: "name: ok\n"}, tarFile{name: "dashboards/huge.yaml", size: client.MaxBundleFile + 1})
	for _, c := range []struct{ path, want string }{
		{manyPath, fmt.Sprintf("error: bundle-deploy: %d files in the bundle, more than the %d a deployment takes: deploy it as smaller bundles\n", api.MaxBundleFiles+1, api.MaxBundleFiles)},
		{hugePath, fmt.Sprintf("error: bundle-deploy: dashboards/huge.yaml: %d bytes, more than the 16 MiB a bundle file may hold\n", client.MaxBundleFile+1)},
	} {
		out, errOut, code := run(t, "", "bundle-deploy", "--file", c.path)
		if code != 1 || out != "" || errOut != c.want {
			t.Errorf("bundle-deploy --file %s: exit %d, %q %q, want exit 1 and %q", filepath.Base(c.path), code, out, errOut, c.want)
		}
	}
	out, errOut, code = run(t, "", "dashboard", "list", "--json")
	if code != 0 || strings.Contains(out, `"d0"`) || strings.Contains(out, `"ok"`) || !strings.Contains(out, `"big5"`) {
		t.Errorf("dashboard list after the deployments: exit %d %s %s, want big5 and none of the refused ones", code, out, errOut)
	}
}

// TestBundleScript uses the module from Starlark: types as a list or a
// comma-separated string, compare, and a bad type.
func TestBundleScript(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	path := writeBundle(t, t.TempDir(), "ops.tar.gz", bundleFiles("")...)
	src := `
f = ` + strconv.Quote(path) + `
print([(r["type"], r["name"], r["change"]) for r in bundle.deploy(f, compare = True, types = "d")])
print([(r["name"], r["change"]) for r in bundle.deploy(f, types = ["p", "pipeline"])])
print([(r["type"], r["change"]) for r in bundle.deploy(f, compare = True)])
print(try_(bundle.deploy, f, types = ["x"])[1])
`
	out, errOut, code := run(t, src)
	want := `[("dashboard", "ops", "new")]
[("alerts", "new"), ("report", "new")]
[("pipeline", "unchanged"), ("pipeline", "unchanged"), ("blueprint", "new"), ("blueprint", "new"), ("dashboard", "new")]
bundle.deploy: types: "x" is not d (dashboard), b (blueprint) or p (pipeline)
`
	if code != 0 || out != want {
		t.Fatalf("%d %q\n%s\nwant\n%s", code, errOut, out, want)
	}
}
