package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/lib/release"
)

// writeBuild writes a build directory as make dist does, with stand-in
// binaries.
func writeBuild(t *testing.T, dir, version string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range release.Binaries {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho "+name+" "+version+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := release.Seal(dir, version); err != nil {
		t.Fatal(err)
	}
}

// TestOutputFabricUpgrade: maintenance mode on and off, as pods shows
// it; an upgrade to the build the pods run already does nothing; a build
// that is no build, a damaged one and a process that takes no upgrade
// (the test fabric's pods run in the test's process) are one line each.
// The upgrade itself is cmd/fabricd's TestRollingUpgrade.
func TestOutputFabricUpgrade(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	s := newSession(t, "fabric-maintenance", "fabric-upgrade")
	s.vars["WORKER"] = f.PodsOf("a", api.Worker)[0]
	if host, err := os.Hostname(); err == nil {
		s.sc.Literal(host, "<HOST>")
	}
	dir := s.vars["DIR"]
	writeBuild(t, filepath.Join(dir, "same"), "test")
	writeBuild(t, filepath.Join(dir, "next"), "9.9.9")
	writeBuild(t, filepath.Join(dir, "damaged"), "9.9.9")
	os.WriteFile(filepath.Join(dir, "damaged", "fabricd"), []byte("#!/bin/sh\n"), 0o755)

	s.steps(
		step{cmd: "fabric maintenance --pod-id $WORKER"},
		step{do: func() {
			if out := s.setup("", "pods --type worker"); !strings.Contains(out, "local (maintenance)") {
				t.Errorf("pods does not show the worker in maintenance:\n%s", out)
			}
		}},
		step{cmd: "fabric maintenance --pod-id $WORKER --off --json"},
		step{cmd: "fabric maintenance --pod-id 0badc0de", code: 1},
		step{cmd: "fabric maintenance", code: 2},

		step{cmd: "fabric upgrade --to $DIR/same --rolling --yes"},
		step{cmd: "fabric upgrade --to $DIR/nope --yes", code: 1},
		step{cmd: "fabric upgrade --to $DIR/damaged --yes", code: 1},
		step{cmd: "fabric upgrade --to $DIR/next --rolling --yes", code: 1},
		step{cmd: "fabric upgrade --to $DIR/next --rolling", code: 1},
		step{cmd: "fabric upgrade --to $DIR/next --timeout 0 --yes", code: 1},
	)
	s.unreachable("fabric maintenance --pod-id $WORKER", "fabric upgrade --to $DIR/same")
}
