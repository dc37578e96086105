package cli

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/lib/upgradeplan"
)

// fixedDisk makes the upgrade's disk check read a disk 42% used, for the
// rest of the test, whatever the disk the test runs on (a runner's disk
// 80% full made the upgrade refuse, as it should).
func fixedDisk(t *testing.T) {
	prev := builtins.UpgradeStatfs
	builtins.UpgradeStatfs = func(string) (upgradeplan.Usage, error) {
		return upgradeplan.Usage{Total: 100 << 30, Free: 58 << 30, Avail: 58 << 30}, nil
	}
	t.Cleanup(func() { builtins.UpgradeStatfs = prev })
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeSums is a checksum of every file and directory under dir.
func treeSums(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			out[p] = "dir"
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = fmt.Sprintf("%x", sha256.Sum256(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOutputUpgrade: the 8.0.0 -> 8.1.0.1 procedure over a copy of the
// sample deployment directory (no fabric): plan, a dry run, an apply
// stopped after step 4 and resumed, the manual steps confirmed, a second
// apply, and the refusals.
func TestOutputUpgrade(t *testing.T) {
	fixedDisk(t)
	s := newSession(t, "upgrade-plan", "upgrade-apply", "upgrade-status", "upgrade-confirm")
	dir := s.vars["DIR"]
	t.Setenv("FABRIC_HOME", filepath.Join(dir, "home"))
	t.Setenv("FABRIC_UPGRADE_STOP_AFTER", "")
	disk := regexp.MustCompile(`disk: \d+% used`)
	s.normalize = func(_, errOut string) string { return disk.ReplaceAllString(errOut, "disk: N% used") }
	sample := filepath.Join("..", "examples", "upgrade", "deployment-8.0.0")
	copyTree(t, sample, filepath.Join(dir, "dep"))
	copyTree(t, sample, filepath.Join(dir, "bad"))
	write(t, dir, "bad/values.yaml", "rda_api_server:\n  hosts: [\n")
	copyTree(t, sample, filepath.Join(dir, "nonats"))
	os.Remove(filepath.Join(dir, "nonats", "nats.conf"))

	// plan and --dry-run change no byte (nor make the key).
	before := treeSums(t, dir)
	s.steps(
		step{cmd: "upgrade plan --dir $DIR/dep"},
		step{cmd: "upgrade plan --dir $DIR/dep --from 7.2.0", code: 1},
		step{cmd: "upgrade plan --dir $DIR/bad", code: 1},
		step{cmd: "upgrade plan", code: 2},
		step{cmd: "upgrade status --dir $DIR/dep"},
		step{cmd: "upgrade apply --dir $DIR/dep --dry-run"},
		step{do: func() {
			// The client keeps its compiled scripts under its home: a
			// cache of the build, not a change the upgrade made.
			os.RemoveAll(filepath.Join(dir, "home", "cache"))
			os.Remove(filepath.Join(dir, "home")) // when nothing else is there
			if after := treeSums(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("plan or --dry-run changed the tree:\n%v\n%v", before, after)
			}
		}},
		step{cmd: "upgrade apply --dir $DIR/dep --no-proxy 10.0.0.1", code: 2},
		step{cmd: "upgrade apply --dir $DIR/bad", code: 1},
		step{cmd: "upgrade apply --dir $DIR/nonats", code: 1},
		step{do: func() { os.Setenv("FABRIC_UPGRADE_STOP_AFTER", "4") }},
		step{cmd: "upgrade apply --dir $DIR/dep"},
		step{do: func() { os.Setenv("FABRIC_UPGRADE_STOP_AFTER", "") }},
		step{cmd: "upgrade confirm --dir $DIR/dep --step pre-2 pre-3"},
		step{cmd: "upgrade confirm --dir $DIR/dep --step pre-3 pre-4 --json"},
		step{cmd: "upgrade confirm --dir $DIR/dep --step 4", code: 1},
		step{cmd: "upgrade confirm --dir $DIR/dep --step 9.9", code: 1},
		step{cmd: "upgrade confirm --dir $DIR/dep", code: 2},
		step{cmd: "upgrade status --dir $DIR/dep"},
		step{cmd: "upgrade apply --dir $DIR/dep --proxy http://proxy.acme.example:3128"},
		step{cat: "$DIR/dep/values.yaml", key: "upgrade-apply"},
		step{cmd: "upgrade apply --dir $DIR/dep --yes --json"},
		step{cmd: "upgrade apply --dir $DIR/dep"},
		step{cmd: "upgrade status --dir $DIR/dep --json"},
		step{cmd: "upgrade status --dir $DIR/none", code: 1},
		step{do: func() { os.Remove(filepath.Join(dir, "dep", ".upgrade-state.json")) }},
		step{cmd: "upgrade apply --dir $DIR/dep", code: 1},
	)
}
