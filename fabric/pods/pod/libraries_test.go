package pod_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// TestLibrariesEndpoint asks a worker's libraries endpoint directly: its
// rows, a QL query it does not match, and requests it refuses.
func TestLibrariesEndpoint(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.Worker}})
	id := f.PodsOf("a", api.Worker)[0]
	// A file staged before the pod started would be installed at its
	// start; one staged now waits for the restart.
	staged := filepath.Join(f.DataDir("a"), "packages", id, "staged")
	if err := os.MkdirAll(staged, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(staged, "site_x-2.0.tar.gz"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	nc, err := bus.Connect(f.Configs["a"], "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	latest := []api.LibraryFile{{Package: "site_x", Version: "2.0", Filename: "site_x-2.0.tar.gz"}, {Package: "fabric_y", Version: "1", Filename: "fabric_y-1.tar.gz"}}
	for _, c := range []struct {
		name string
		req  api.LibrariesRequest
		want string
	}{
		{"rows", api.LibrariesRequest{Op: "list", Latest: latest},
			`"rows":[{"package":"fabric_y","filename":"fabric_y-1.tar.gz","objectstore_version":"1","installed_version":"","status":"NOT INSTALLED"},{"package":"site_x","filename":"site_x-2.0.tar.gz","objectstore_version":"2.0","installed_version":"","status":"STAGED"}]`},
		{"query matches", api.LibrariesRequest{Op: "list", QLQuery: "pod_type = 'worker' and site_name = 'local'"}, `"site_name":"local","rows":[{"package":"site_x"`},
		{"query does not match", api.LibrariesRequest{Op: "list", QLQuery: "pod_type = 'scheduler'"}, `"skipped":true`},
		{"bad query", api.LibrariesRequest{Op: "list", QLQuery: "pod_type ="}, `{"error":"--ql-query: `},
		{"unknown op", api.LibrariesRequest{Op: "remove"}, `{"error":"unknown libraries operation \"remove\""}`},
	} {
		data, _ := json.Marshal(c.req)
		msg, err := nc.Request(api.PodSubject(id, api.EndpointLibraries), data, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(string(msg.Data), c.want) {
			t.Errorf("%s: %s, want %s", c.name, msg.Data, c.want)
		}
	}
}
