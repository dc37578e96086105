package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/bus"
)

// TestTenantsFenced: a tenant reads only its own data directory through
// @files:loadfile; a job over its memory, row or time limit fails with
// that reason; and a tenant over its storage limit gets a clear error
// while the other tenant keeps writing.
func TestTenantsFenced(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"},
		Limits: bus.Limits{MaxStorage: 8 << 20}})
	dir := t.TempDir()

	// Files: the tenant's own, and nothing of the host's.
	if err := os.WriteFile(filepath.Join(f.DataDir("a"), "hosts.csv"), []byte("host,cpu\nweb-1,93\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{"hosts.csv", ""},
		{"/etc/passwd", `"/etc/passwd" is outside the tenant's data directory`},
		{"../../../../../../etc/passwd", `is outside the tenant's data directory`},
		{"../b/secret.csv", `is outside the tenant's data directory`},
	} {
		p := write(t, dir, "load.pipeline", "@files:loadfile filename = '"+tc.file+"'\n")
		out, errOut, code := run(t, "", "run-get-output", "--file", p, "--format", "csv", "--timeout", "20")
		switch {
		case tc.want == "" && (code != 0 || out != "host,cpu\nweb-1,93\n"):
			t.Errorf("%s: %d %q %q", tc.file, code, out, errOut)
		case tc.want != "" && (code != 1 || !strings.Contains(errOut, tc.want) || strings.Contains(out, "root:")):
			t.Errorf("%s: %d %q %q, want a refusal", tc.file, code, out, errOut)
		}
	}
	// A symbolic link out of the directory is refused too.
	if err := os.Symlink("/etc/passwd", filepath.Join(f.DataDir("a"), "passwd.csv")); err != nil {
		t.Fatal(err)
	}
	p := write(t, dir, "link.pipeline", "@files:loadfile filename = 'passwd.csv'\n")
	if out, errOut, code := run(t, "", "run-get-output", "--file", p, "--timeout", "20"); code != 1 || strings.Contains(out, "root:") {
		t.Errorf("a link out of the data directory: %d %q %q", code, out, errOut)
	}

	// Job limits.
	for _, tc := range []struct{ limits, want string }{
		{"max_rows: 3", "more than the job's limit of 3 rows"},
		{"max_memory_mb: 0.00001", "more than its memory limit of 1e-05 MB"},
		{"max_rows: 999999999999", "limits: max_rows 999999999999 is above the tenant's maximum of 200000000"},
	} {
		doc := "name: limited\nlimits:\n  " + tc.limits + "\ndata:\n  sequence:\n    - tag: \"@dm:empty\"\n" +
			strings.Repeat("    - tag: \"@dm:addrow\"\n      query: \"host = 'web' & cpu = 1\"\n", 5)
		p := write(t, dir, "limited.yaml", doc)
		_, errOut, code := run(t, "", "run-get-output", "--file", p, "--timeout", "20")
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: %d %q, want %q", tc.limits, code, errOut, tc.want)
		}
	}
	timed := write(t, dir, "timed.yaml", "name: slow\nlimits:\n  max_seconds: 1\ndata:\n  sequence:\n    - tag: \"@c:timed-loop\"\n      query: \"interval = 1 & duration = 60\"\n    - tag: \"@dm:empty\"\n")
	id := startJob(t, timed)
	if j := jobStatus(t, id, api.JobFailed, api.JobCompleted); j.Status != api.JobFailed || !strings.Contains(j.Reason, "time limit of 1s") {
		t.Errorf("a job over its time limit: %s %q", j.Status, j.Reason)
	}

	// Storage: tenant a fills its 8 MB; tenant b keeps writing.
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte("id,text\n"+strings.Repeat("1,"+strings.Repeat("x", 100)+"\n", 120_000)), 0o644)
	_, errOut, code := run(t, "", "dataset", "add", "--name", "big", "--file", big, "--remote_format", "csv")
	if code != 1 || !strings.Contains(errOut, "storage limit") {
		t.Errorf("a tenant over its storage limit: %d %q", code, errOut)
	}
	f.UseTenant(t, "b")
	small := write(t, dir, "small.csv", "host,cpu\nweb-1,1\n")
	if _, errOut, code := run(t, "", "dataset", "add", "--name", "small", "--file", small); code != 0 {
		t.Errorf("the other tenant cannot write: %d %q", code, errOut)
	}
}
