package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputPackBotPackage: the example pack carries the bot package
// netops-tools. Activated in tenant a, the package is in a's catalog
// (bot-package list), its bots run in the pack's pipeline (a job on a
// worker) and the package cannot be deleted while the pipeline calls
// it; tenant b never sees it (its list is empty, its pipelines cannot
// call the bot). Deactivation deletes it.
func TestOutputPackBotPackage(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	s := newSession(t)
	dir := s.vars["DIR"]
	packDir(t, dir, "netops-1.0.0.tar.gz", nil)
	write(t, dir, "grade.pipeline", "@dm:empty\n  --> @dm:addrow site = 'x' & devices = 50\n  --> @netops:grade\n")

	// packages lists a tenant's bot packages: name version bots.
	packages := func() string {
		t.Helper()
		out := s.setup("", "bot-package list --json")
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("bot-package list --json: %v\n%s", err, out)
		}
		var names []string
		for _, r := range rows {
			names = append(names, r["name"].(string)+" "+r["version"].(string))
		}
		return strings.Join(names, ",")
	}
	// grade runs grade.pipeline: its output, or its error.
	grade := func() (string, string) {
		t.Helper()
		out, errOut, _ := run(t, "", "run-get-output", "--file", dir+"/grade.pipeline", "--format", "csv")
		return out, errOut
	}

	s.setup("s3cret", "secret add --name snmp-comm")
	s.setup("", s.expand("pack upload --file $DIR/netops-1.0.0.tar.gz"))
	s.setup("", `pack activate --name netops --version 1.0.0 --inputs '{"snmp_community": {"$secret": "snmp-comm"}}'`)
	if got := packages(); got != "netops-tools 1.0.0" {
		t.Fatalf("tenant a's bot packages after activation: %q", got)
	}
	if out, errOut := grade(); !strings.Contains(out, "x,50,high") {
		t.Errorf("a pipeline calling @netops:grade in tenant a: %s%s", out, errOut)
	}
	if out, errOut, _ := run(t, "", "run-get-output", "--name", "netops-hot-hosts", "--format", "csv"); !strings.Contains(out, "lon-1") || !strings.Contains(out, ",high") {
		t.Errorf("the pack's pipeline: %s%s", out, errOut)
	}
	if _, errOut, code := run(t, "", "bot-package", "delete", "--name", "netops-tools"); code != 1 || !strings.Contains(errOut, "in use by pipeline netops-hot-hosts") {
		t.Errorf("deleting the pack's bot package: exit %d %s", code, errOut)
	}

	s.withNetworkConfig(f.ConfigPath("b"), func() {
		if got := packages(); got != "" {
			t.Errorf("tenant b's bot packages: %q", got)
		}
		if out, errOut := grade(); !strings.Contains(errOut, "@netops:grade") || !strings.Contains(errOut, "unknown bot") {
			t.Errorf("a pipeline calling @netops:grade in tenant b: %s%s", out, errOut)
		}
	})

	s.setup("", "pack deactivate --name netops --version 1.0.0")
	if got := packages(); got != "" {
		t.Errorf("tenant a's bot packages after deactivation: %q", got)
	}
	if out, errOut := grade(); !strings.Contains(errOut, "unknown bot") {
		t.Errorf("a pipeline calling @netops:grade after deactivation: %s%s", out, errOut)
	}
}
