package worker_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
)

const mathYML = `extension:
  namespace: calc
  type: bot-package
  version: 1.0.0
  description: Uses a library
  default_name: calc-bots
  publisher: Acme
  support_email: ""
  config_template: {}
  implementation: {code: calc.Bots}
bots:
  - {name: double, bot_type: transform, model_type: api}
`

const mathStar = `load("@lib/fabric_math//ops.star", "twice")

def double(frame, params, config):
    return [{"n": row["n"], "twice": twice(row["n"])} for row in frame]

Bots = struct(double = double)
`

// TestPackageBotsLoadLibraries: a bot package whose module loads a
// library's module (load("@lib/fabric_math//ops.star")) runs only once
// the library is installed on the worker: uploaded and staged it is not
// loadable (the job names the library), after the worker restarts the
// pipeline runs.
func TestPackageBotsLoadLibraries(t *testing.T) {
	pf := startPackageFabric(t, 2*time.Minute, fstest.MapFS{"bots.yml": {Data: []byte(mathYML)}, "calc.star": {Data: []byte(mathStar)}})
	c, ctx := pf.c, pf.ctx

	// The library: fabric_math-1.0.0.tar.gz with ops.star.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	body := "def twice(x):\n    return 2 * x\n"
	if err := tw.WriteHeader(&tar.Header{Name: "fabric_math-1.0.0/ops.star", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(body))
	tw.Close()
	zw.Close()
	lib := filepath.Join(t.TempDir(), "fabric_math-1.0.0.tar.gz")
	if err := os.WriteFile(lib, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LibraryUpload(ctx, lib); err != nil {
		t.Fatal(err)
	}

	steps := []api.PipelineStep{{Tag: "@dm:empty"}, {Tag: "@dm:addrow", Query: "n = 21"}, {Tag: "@calc:double"}}
	// run runs the pipeline and returns its job, or why it did not start
	// (a worker refuses a job whose bots cannot load).
	run := func() (api.Job, string) {
		t.Helper()
		resp, err := c.Run(ctx, api.RunRequest{Pipeline: "calc", Steps: steps}, client.Placement{Site: "local"})
		if err != nil {
			return api.Job{}, err.Error()
		}
		j, err := c.Wait(ctx, resp.JobID, time.Minute, nil)
		if err != nil {
			t.Fatal(err)
		}
		return j, j.Reason
	}
	const notInstalled = "no library fabric_math is installed on this pod"
	if j, why := run(); j.Status == api.JobCompleted || !strings.Contains(why, notInstalled) {
		t.Fatalf("before install: %s %q", j.Status, why)
	}
	target := api.LibraryTarget{PodType: api.Worker, Site: ".*"}
	if _, err := c.LibraryInstall(ctx, []string{"fabric_math"}, target, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if j, why := run(); j.Status == api.JobCompleted || !strings.Contains(why, notInstalled) {
		t.Fatalf("staged, not yet installed: %s %q", j.Status, why)
	}
	pods, err := c.Pods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if p.PodType == api.Worker {
			if _, err := c.Restart(ctx, p.PodID); err != nil {
				t.Fatal(err)
			}
		}
	}
	var j api.Job
	var why string
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, why = run()
		if j.Status == api.JobCompleted || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // the restarted worker registering again
	}
	if j.Status != api.JobCompleted || j.SmallOutput == nil || fmt.Sprint(j.SmallOutput.Rows) != "[[21 42]]" {
		t.Fatalf("after the restart: %s %q %+v", j.Status, why, j.SmallOutput)
	}
}
