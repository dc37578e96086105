package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// miniPack writes a pack of one dashboard at dir/NAME-VERSION.tar.gz;
// vars are manifest lines of common deploy variables.
func miniPack(t *testing.T, dir, name, version, publisher string, vars ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf("name: %s\nversion: %s\npublisher: %s\n", name, version, publisher)
	if len(vars) > 0 {
		manifest += "common_deploy_vars:\n"
		for _, v := range vars {
			manifest += "  - " + v + "\n"
		}
	}
	dash := fmt.Sprintf("%s-%s", name, version)
	manifest += fmt.Sprintf("artifacts:\n  dashboard:\n    - {name: %s, file: dashboards/main.yaml}\n", dash)
	body := fmt.Sprintf("name: %s\nlabel: %s\ndashboard_sections:\n  - title: Main\n    widgets:\n      - {widget_type: table, title: Events, stream: events, duration_hours: 24}\n", dash, name)
	writeBundle(t, dir, name+"-"+version+".tar.gz", tarFile{name: "manifest.yaml", body: manifest}, tarFile{name: "dashboards/main.yaml", body: body})
}

// cleanupCounts are the counts of a pack cleanup-system --json run.
type cleanupCounts struct {
	Total, Processed, Marked, Deleted int
	SkippedActivated                  int `json:"skipped_activated"`
	SkippedNotFound                   int `json:"skipped_not_found"`
}

// TestOutputPackCatalogue: SPEC 9.1 post-steps 4-6. The cleanup of the
// system-bundle packs (its --test deletes nothing and counts as the real
// run), then a catalogue installed, base packs first.
func TestOutputPackCatalogue(t *testing.T) {
	fixedDisk(t)
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Worker}})
	s := newSession(t, "pack-cleanup-system", "pack-install-catalogue")
	dir := s.vars["DIR"]
	for _, p := range [][3]string{{"sys-alerts", "8.0.0", "system"}, {"sys-topology", "8.0.0", "System"}, {"sys-reports", "8.0.0", "system"},
		{"sys-reports", "7.9.0", "system"}, {"acme-noc", "1.0.0", "Acme"}, {"ml", "8.0.0", "Fabric"}} {
		miniPack(t, dir+"/old", p[0], p[1], p[2])
		s.setup("", s.expand("pack upload --file $DIR/old/"+p[0]+"-"+p[1]+".tar.gz"))
	}
	s.setup("", "pack activate --name sys-alerts --version 8.0.0")
	s.setup("", "pack activate --name ml --version 8.0.0")

	before := s.setup("", "pack list --json")
	test := s.setup("", "pack cleanup-system --test --json")
	if after := s.setup("", "pack list --json"); after != before {
		t.Fatalf("--test changed the catalogue:\n%s\n%s", before, after)
	}
	s.steps(
		step{cmd: "pack cleanup-system --test --stats"},
		step{cmd: "pack cleanup-system --test --bogus", code: 2},
	)
	real, _ := s.run(0, "", s.expand("pack cleanup-system --json"))
	var a, b cleanupCounts
	if err := json.Unmarshal([]byte(test), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(real), &b); err != nil {
		t.Fatal(err)
	}
	if a != b || b != (cleanupCounts{Total: 6, Processed: 4, Marked: 3, Deleted: 3, SkippedActivated: 1}) {
		t.Errorf("counts: --test %+v, real %+v", a, b)
	}
	s.steps(step{cmd: "pack cleanup-system --stats"})
	var left []struct{ Name, Version string }
	if err := json.Unmarshal([]byte(s.setup("", "pack list --json")), &left); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(left); got != "[{acme-noc 1.0.0} {ml 8.0.0} {sys-alerts 8.0.0}]" {
		t.Errorf("left after the cleanup: %s", got)
	}

	cat := dir + "/catalogue"
	miniPack(t, cat, "fault-management-base", "9.0.13", "Fabric")
	miniPack(t, cat, "inventory-collection-base", "7.2.0", "Fabric")
	miniPack(t, cat, "ml", "9.0.0", "Fabric")
	miniPack(t, cat, "network-device-discovery", "9.0.0", "Fabric")
	miniPack(t, dir+"/needs", "asset-correlation-base", "9.0.1", "Fabric", "{name: threshold, description: The correlation threshold}")
	miniPack(t, dir+"/needs", "vm-inventory", "9.0.2", "Fabric")
	write(t, dir, "inputs.json", `{"asset-correlation-base": {"threshold": "0.8"}}`)
	write(t, dir, "notjson.json", `[1, 2]`)
	s.steps(
		step{cmd: "pack install-catalogue --dir $DIR/catalogue", code: 1},
		step{cmd: "pack install-catalogue --dir $DIR/catalogue --replace"},
		step{cmd: "pack install-catalogue --dir $DIR/catalogue --json"},
		step{cmd: "pack install-catalogue --dir $DIR/needs", code: 1},
		step{cmd: "pack install-catalogue --dir $DIR/needs --all --inputs $DIR/inputs.json"},
		step{cmd: "pack install-catalogue --dir $DIR/needs --inputs $DIR/notjson.json", code: 1},
		step{cmd: "pack install-catalogue --dir $DIR/none", code: 1},
		step{cmd: "pack install-catalogue", code: 2},
	)
	s.unreachable("pack cleanup-system --test")

	// upgrade apply --packs-dir runs post-steps 4-6 once the steps before
	// them are confirmed.
	t.Setenv("FABRIC_HOME", dir+"/home")
	copyTree(t, filepath.Join("..", "examples", "upgrade", "deployment-8.0.0"), dir+"/dep")
	miniPack(t, dir+"/packs-8.1.0.1", "ml", "9.1.0", "Fabric")
	miniPack(t, dir+"/old2", "sys-extra", "8.0.0", "system")
	s.setup("", s.expand("pack upload --file $DIR/old2/sys-extra-8.0.0.tar.gz"))
	_, errOut, code := run(t, "", splitArgs(t, s.expand("upgrade apply --dir $DIR/dep --packs-dir $DIR/packs-8.1.0.1"))...)
	if code != 0 || !strings.Contains(errOut, "the packs wait for steps pre-2, pre-3") {
		t.Errorf("packs before the platform is upgraded:\n%s", errOut)
	}
	out := s.setup("", s.expand("upgrade apply --dir $DIR/dep --yes --packs-dir $DIR/packs-8.1.0.1"))
	if !strings.Contains(out, "pack ml 9.1.0: uploaded, activated (replaced 9.0.0)\ndone step post-4") {
		t.Errorf("packs with --yes:\n%s", out)
	}
	if list := s.setup("", "pack list --json"); strings.Contains(list, "sys-extra") {
		t.Error("the system-bundle pack was not deleted")
	}
}
