package cli

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

// TestHostileYAMLBombs: the commands that read a tenant's YAML refuse a
// recursive alias and a billion laughs with one line naming the limit,
// exit 1, in milliseconds and little memory. Before, a recursive alias
// ended the client with a 408-line Go trace (a stack overflow) and a
// 1 KB billion laughs held it at 1.7 GB.
func TestHostileYAMLBombs(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	dir := t.TempDir()
	const recursive = "recursive alias"
	const laughs = "aliases expand it by more than its alias expansion limit of 100000 nodes"
	bombs := map[string]string{
		"recursive-deployment.yaml": "id: x\nname: x\nservice_pipelines: &a [*a]\n",
		"laughs-deployment.yaml":    yamldoc.BillionLaughs("id: x\nname: x\n"),
		"recursive-dashboard.yaml":  "name: x\ndashboard_sections: &a [*a]\n",
		"laughs-dashboard.yaml":     yamldoc.BillionLaughs("name: x\n"),
		"recursive-endpoint.yaml":   "name: x\ntype: syslog_tcp\nport: &a [*a]\n",
		"laughs-endpoint.yaml":      yamldoc.BillionLaughs("name: x\ntype: syslog_tcp\n"),
	}
	for name, body := range bombs {
		write(t, dir, name, body)
	}
	writeBundle(t, dir, "recursive-blueprint.tar.gz", tarFile{name: "blueprints/x.yaml", body: bombs["recursive-deployment.yaml"]})
	writeBundle(t, dir, "laughs-blueprint.tar.gz", tarFile{name: "blueprints/x.yaml", body: bombs["laughs-deployment.yaml"]})
	writeBundle(t, dir, "laughs-dashboard.tar.gz", tarFile{name: "dashboards/x.yaml", body: bombs["laughs-dashboard.yaml"]})
	writeBundle(t, dir, "recursive-pipeline.tar.gz", tarFile{name: "pipelines/x.yaml", body: "name: x\ndata: &a {sequence: [*a]}\n"})
	writeBundle(t, dir, "laughs-pipeline.tar.gz", tarFile{name: "pipelines/x.yaml", body: yamldoc.BillionLaughs("name: x\n")})

	for _, tc := range []struct {
		cmd, file, wantErr string
	}{
		{"deployment add --file", "recursive-deployment.yaml", recursive},
		{"deployment add --file", "laughs-deployment.yaml", laughs},
		{"dashboard add --file", "recursive-dashboard.yaml", recursive},
		{"dashboard add --file", "laughs-dashboard.yaml", laughs},
		{"event-endpoint add --file", "recursive-endpoint.yaml", recursive},
		{"event-endpoint add --file", "laughs-endpoint.yaml", laughs},
		{"bundle-deploy --file", "recursive-blueprint.tar.gz", recursive},
		{"bundle-deploy --file", "laughs-blueprint.tar.gz", laughs},
		{"bundle-deploy --file", "laughs-dashboard.tar.gz", laughs},
		{"bundle-deploy --file", "recursive-pipeline.tar.gz", recursive},
		{"bundle-deploy --file", "laughs-pipeline.tar.gz", laughs},
	} {
		t.Run(tc.cmd+" "+tc.file, func(t *testing.T) {
			args := append(strings.Fields(tc.cmd), dir+"/"+tc.file)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			out, errOut, code := run(t, "", args...)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if code != 1 || !strings.Contains(errOut, tc.wantErr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, tc.wantErr)
			}
			if lines := strings.Count(strings.TrimSpace(errOut), "\n") + 1; lines != 1 || strings.Contains(errOut, "goroutine") {
				t.Fatalf("stderr of %d lines, want one:\n%s", lines, errOut)
			}
			if took > 10*time.Second {
				t.Errorf("took %v", took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
				t.Errorf("allocated %d MB", alloc>>20)
			}
		})
	}
}
