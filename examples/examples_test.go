// Package examples holds runnable analyst workflows; this test runs every
// one of them through the client's entry point.
package examples

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/cli"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

func TestExamples(t *testing.T) {
	files, err := filepath.Glob("*.star")
	if err != nil || len(files) < 2 {
		t.Fatalf("want at least two examples, found %v (%v)", files, err)
	}
	// One fabric for all examples; it sets FABRIC_HOME and the network
	// configuration, so no example starts a local fabric of its own.
	fabrictest.Start(t, fabrictest.Options{})
	t.Setenv("NO_COLOR", "1")
	for _, f := range files {
		t.Run(strings.TrimSuffix(f, ".star"), func(t *testing.T) {
			// As make demo runs it: no OUTPUT_DIR, so the example makes
			// its own under TMPDIR (a fresh one, as on a new machine).
			t.Setenv("TMPDIR", t.TempDir())
			var stdout, stderr bytes.Buffer
			code := cli.Main([]string{"run", f}, strings.NewReader(""), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			if stdout.Len() == 0 {
				t.Fatalf("%s printed nothing", f)
			}
		})
	}
}
