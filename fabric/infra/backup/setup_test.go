package backup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSetupLimits: a file over MaxSetupFile and a folder of more than
// MaxSetupFiles files are refused with one line, before anything is
// read whole.
func TestSetupLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.MkdirAll(filepath.Join(big, "dashboards"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(big, "dashboards", "x.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSetupFile + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, _, err := readFolder(big, folder{dir: "dashboards"}); err == nil || !strings.Contains(err.Error(), "MiB a setup file may hold") {
		t.Errorf("a file over the limit: %v", err)
	}

	many := filepath.Join(dir, "many", "stacks")
	if err := os.MkdirAll(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= MaxSetupFiles; i++ {
		if err := os.WriteFile(filepath.Join(many, "s"+strconv.Itoa(i)+".json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := readFolder(filepath.Dir(many), folder{dir: "stacks"}); err == nil || !strings.Contains(err.Error(), "files a setup folder may hold") {
		t.Errorf("a folder over the limit: %v", err)
	}
}

// TestReadSettings: every field may be left out; an unknown field, a
// webhook without a name, a missing file and a missing directory are
// refused, naming what is wrong.
func TestReadSettings(t *testing.T) {
	for _, tc := range []struct {
		name, text, err string
	}{
		{"empty", `{}`, ""},
		{"full", `{"description": "d", "webhook": {"name": "w", "stream": "s", "path": "/p", "site": "nyc"}, "pipelines": ["a"], "blueprints": ["b"]}`, ""},
		{"unknown", `{"pipeline": ["a"]}`, `unknown field "pipeline"`},
		{"nameless", `{"webhook": {"stream": "s"}}`, "webhook.name"},
		{"notjson", `{`, "unexpected EOF"},
		{"wrongtype", `{"pipelines": "a"}`, "pipelines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, SettingsName), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadSettings(dir)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("%s: %v", tc.text, err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("%s: got %v, want an error with %q", tc.text, err, tc.err)
			}
		})
	}
	if _, err := ReadSettings(t.TempDir()); err == nil || !strings.Contains(err.Error(), "has no settings.json") {
		t.Errorf("no settings.json: %v", err)
	}
	if _, err := ReadSettings(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("no directory: %v", err)
	}
}

// FuzzSetupDocs: whatever a setup file holds, reading it into a step
// fails with an error or succeeds, never panics.
func FuzzSetupDocs(f *testing.F) {
	f.Add("pstreams", `{"name": "s", "retention_hours": 1}`)
	f.Add("mappings", `{"deployment": "d", "bindings": [{"pipeline": "p"}]}`)
	f.Add("pipelines", "@dm:empty\n  --> @dm:head n = 1\n")
	f.Add("dashboards", "name: x\n")
	f.Add("blueprints", "id: d\nname: D\n")
	f.Fuzz(func(t *testing.T, dir, text string) {
		var fl *folder
		for i := range folders {
			if folders[i].dir == dir {
				fl = &folders[i]
			}
		}
		if fl == nil {
			return
		}
		p := &plan{res: &SetupResult{}}
		_ = p.parse(&step{dir: fl.dir, kind: fl.kind, file: "x.yaml"}, []byte(text))
	})
}
