package worker_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/infra/libraries"
	"github.com/nats-io/nats.go"
)

// libFile writes an sdist NAME-VERSION.tar.gz into dir holding files
// (path: body) and, with zeros > 0, a file big.dat of that many zero
// bytes; it returns its path.
func libFile(t *testing.T, dir, name string, files map[string]string, zeros int64) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	top := strings.TrimSuffix(name, ".tar.gz")
	for p, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + p, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	if zeros > 0 {
		if err := tw.WriteHeader(&tar.Header{Name: top + "/big.dat", Mode: 0o644, Size: zeros, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.CopyN(tw, bytes.NewReader(make([]byte, zeros)), zeros); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPackageDirBounds: library install on a worker stages at most
// libraries.MaxLibraries libraries (the next one's row FAILED, its
// message naming the bound); when the worker starts again it loads its
// libraries by name up to libraries.MaxLoaded bytes of files, logs a line
// for one past it, and serves with the others (a bot package's bots load
// fabric_math).
func TestPackageDirBounds(t *testing.T) {
	pf := startPackageFabric(t, 3*time.Minute, fstest.MapFS{"bots.yml": {Data: []byte(mathYML)}, "calc.star": {Data: []byte(mathStar)}})
	c, ctx := pf.c, pf.ctx

	// fabric_big_a and fabric_big_b unpack to 40 MiB each: each within
	// what a pod loads, not both.
	dir := t.TempDir()
	upload := func(names []string, files map[string]string, zeros int64) {
		t.Helper()
		for _, name := range names {
			if _, err := c.LibraryUpload(ctx, libFile(t, dir, name+"-1.0.0.tar.gz", files, zeros)); err != nil {
				t.Fatal(err)
			}
		}
	}
	upload([]string{"fabric_math"}, map[string]string{"ops.star": "def twice(x):\n    return 2 * x\n"}, 0)
	upload([]string{"fabric_big_a", "fabric_big_b"}, nil, 40<<20)
	var fillers []string
	for i := range libraries.MaxLibraries - 3 {
		fillers = append(fillers, fmt.Sprintf("site_fill%02d", i))
	}
	upload(fillers, map[string]string{"m.star": "x = 1\n"}, 0)
	upload([]string{"site_extra"}, map[string]string{"m.star": "x = 1\n"}, 0)

	target := api.LibraryTarget{PodType: api.Worker, Site: ".*"}
	install := func(names ...string) []api.LibraryInstallRow {
		t.Helper()
		rep, err := c.LibraryInstall(ctx, names, target, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		var rows []api.LibraryInstallRow
		for _, p := range rep.Pods {
			rows = append(rows, p.Install...)
		}
		return rows
	}
	for _, tc := range []struct {
		names  []string
		status string
		msg    string
	}{
		{[]string{"fabric_math", "fabric_big_a", "fabric_big_b"}, api.LibraryStaged, "takes effect when the pod restarts"},
		{fillers, api.LibraryStaged, "takes effect when the pod restarts"},
		{[]string{"site_extra"}, "FAILED", "site_extra-1.0.0.tar.gz is not staged: the pod's package directory would hold more than 64 libraries, the most it may"},
	} {
		rows := install(tc.names...)
		if len(rows) != len(tc.names) {
			t.Fatalf("install %v: %d rows: %+v", tc.names, len(rows), rows)
		}
		for _, r := range rows {
			if r.Status != tc.status || r.Message != tc.msg {
				t.Fatalf("install %s: %s %q, want %s %q", r.Filename, r.Status, r.Message, tc.status, tc.msg)
			}
		}
	}

	// The worker starts again: it logs a line for fabric_big_b and
	// loads the others.
	var mu sync.Mutex
	var logs []string
	sub, err := c.Conn().Subscribe(api.LogSubject(api.Worker, "*"), func(m *nats.Msg) {
		var l api.LogLine
		if json.Unmarshal(m.Data, &l) == nil {
			mu.Lock()
			logs = append(logs, l.Message)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
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
	steps := []api.PipelineStep{{Tag: "@dm:empty"}, {Tag: "@dm:addrow", Query: "n = 21"}, {Tag: "@calc:double"}}
	var j api.Job
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.Run(ctx, api.RunRequest{Pipeline: "calc", Steps: steps}, client.Placement{Site: "local"})
		if err == nil {
			if j, err = c.Wait(ctx, resp.JobID, time.Minute, nil); err != nil {
				t.Fatal(err)
			}
		}
		if j.Status == api.JobCompleted || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // the restarted worker registering again
	}
	if j.Status != api.JobCompleted || j.SmallOutput == nil || fmt.Sprint(j.SmallOutput.Rows) != "[[21 42]]" {
		t.Fatalf("after the restart: %s %q %+v", j.Status, j.Reason, j.SmallOutput)
	}
	const over = "libraries: library fabric_big_b-1.0.0.tar.gz is not loaded: the pod's libraries would take more than 64 MiB of memory, the most a pod loads (40 MiB loaded)"
	mu.Lock()
	defer mu.Unlock()
	found := 0
	for _, l := range logs {
		if strings.Contains(l, "libraries: ") {
			if l != over {
				t.Errorf("log line %q", l)
			}
			found++
		}
	}
	if found != 1 {
		t.Fatalf("%d lines of %q in %q", found, over, logs)
	}
	// library list tells what the worker loaded: fabric_big_b is not
	// installed, fabric_big_a is up to date.
	rep, err := c.LibraryList(ctx, target, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Pods {
		status := map[string]string{}
		for _, r := range p.Rows {
			status[r.Package] = r.Status
		}
		if status["fabric_big_b"] != api.LibraryNotInstalled || status["fabric_big_a"] != api.LibraryUpToDate {
			t.Errorf("pod %s: fabric_big_a %s, fabric_big_b %s", p.PodID, status["fabric_big_a"], status["fabric_big_b"])
		}
	}
}
