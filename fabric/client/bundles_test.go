package client_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/nats-io/nats.go"
)

// writeBundle writes a .tar.gz of files (name, content) at path.
func writeBundle(t *testing.T, path string, files ...[2]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(f[1]))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// staged lists the bundle files staged in the tenant's object store.
func staged(t *testing.T, c *client.Client) []string {
	t.Helper()
	st, err := c.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := st.Blobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range blobs {
		if strings.HasPrefix(b, api.BundleStagePrefix) {
			out = append(out, b)
		}
	}
	return out
}

// TestBundleRequestWaits: a bundle deployment stages the bundle's files
// in the object store and sends one request naming them to the
// api-server; with none running the client says so at once and deletes
// what it staged, and while the api-server has not answered the client
// stops waiting when the caller's context ends, saying what it waited
// for (the staged files are then the api-server's to delete).
func TestBundleRequestWaits(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.Worker}})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := filepath.Join(t.TempDir(), "ops.tar.gz")
	writeBundle(t, path, [2]string{"README.md", "ops\n"}, [2]string{"dashboards/ops.yaml", "name: ops\n"})
	b, err := client.OpenBundle(path, "ops.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DeployBundle(context.Background(), b, client.BundleOptions{})
	if want := "no api-server is running: it deploys bundles (start one: client fabric up)"; err == nil || err.Error() != want {
		t.Fatalf("with no api-server: %v, want %q", err, want)
	}
	if left := staged(t, c); len(left) > 0 {
		t.Errorf("staged files left when no api-server took the request: %v", left)
	}

	// An api-server that takes the request and does not answer.
	got := make(chan api.BundleDeployRequest, 1)
	sub, err := c.Conn().Subscribe(api.SubjectBundleDeploy, func(m *nats.Msg) {
		var req api.BundleDeployRequest
		_ = json.Unmarshal(m.Data, &req)
		got <- req
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err = c.CompareBundle(ctx, b, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "stopped waiting for the api-server to compare the bundle: context deadline exceeded") {
		t.Fatalf("with no answer: %v, want it to say it stopped waiting", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("waited %s after the caller's context ended", d)
	}
	select {
	case req := <-got:
		if !req.Compare || len(req.Files) != 1 || req.Files[0].Path != "dashboards/ops.yaml" || req.Files[0].Size != 10 || !api.Staged(req.Files[0].Blob) {
			t.Fatalf("request %+v, want compare and the staged dashboard", req)
		}
		st, _ := c.Store(context.Background())
		r, size, err := st.GetBlob(context.Background(), req.Files[0].Blob)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(r)
		r.Close()
		if size != 10 || string(data) != "name: ops\n" {
			t.Errorf("staged %q (%d bytes), want the dashboard", data, size)
		}
	default:
		t.Error("the api-server got no request")
	}
}

// TestBundleStaging: a bundle's archive is read again to stage it; one
// that changed since it was opened is refused, and what was staged is
// deleted. A caller's context that ends while the files are staged stops
// the staging, saying so, and deletes what was staged.
func TestBundleStaging(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := filepath.Join(t.TempDir(), "ops.tar.gz")
	writeBundle(t, path, [2]string{"dashboards/a.yaml", "name: a\n"}, [2]string{"dashboards/b.yaml", "name: b\n"})
	b, err := client.OpenBundle(path, "ops.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	writeBundle(t, path, [2]string{"dashboards/a.yaml", "name: a\n"}, [2]string{"dashboards/c.yaml", "name: c\n"})
	if _, err := c.DeployBundle(context.Background(), b, client.BundleOptions{}); err == nil || err.Error() != "ops.tar.gz: the archive changed since it was read: deploy it again" {
		t.Errorf("deploy of a changed archive: %v, want it refused", err)
	}
	if left := staged(t, c); len(left) > 0 {
		t.Errorf("staged files left after a refused staging: %v", left)
	}

	// Several MB (more than a message holds) deploy.
	var files [][2]string
	for i := range 5 {
		files = append(files, [2]string{fmt.Sprintf("dashboards/big%d.yaml", i), fmt.Sprintf("name: big%d\ndescription: %s\n", i, strings.Repeat("x", 800<<10))})
	}
	writeBundle(t, path, files...)
	if b, err = client.OpenBundle(path, "big.tar.gz"); err != nil {
		t.Fatal(err)
	}
	rows, err := c.DeployBundle(context.Background(), b, client.BundleOptions{})
	if err != nil || len(rows) != 5 {
		t.Fatalf("deploy of 4 MB: %+v %v", rows, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.DeployBundle(ctx, b, client.BundleOptions{}); err == nil || !strings.HasPrefix(err.Error(), "stopped staging the bundle's files in the tenant's object store: context canceled") {
		t.Errorf("deploy with the caller's context ended: %v, want it to say it stopped staging", err)
	}
	if left := staged(t, c); len(left) > 0 {
		t.Errorf("staged files left after the api-server's deployment and a stopped one: %v", left)
	}
}
