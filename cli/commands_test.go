package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/internal/testutil"
	"gopkg.in/yaml.v3"
)

const pipelineJSON = `{"name": "hot-hosts", "version": "2026_11_21_1", "data": {"name": "hot-hosts", "sequence": [
  {"tag": "@dm:empty", "query": "", "comment": ""},
  {"tag": "@dm:addrow", "query": "host = 'web-1' & cpu = 93.5", "comment": ""},
  {"tag": "*dm:filter", "query": "cpu > 90", "comment": "hot only"}]}}`

func TestChecksum(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.json", pipelineJSON)
	b := write(t, dir, "b.json", `{
    "data": {
        "sequence": [
            {"comment": "", "query": "", "tag": "@dm:empty"},
            {"query": "host = 'web-1' & cpu = 93.5", "tag": "@dm:addrow", "comment": ""},
            {"comment": "hot only", "tag": "*dm:filter", "query": "cpu > 90"}
        ],
        "name": "hot-hosts"
    },
    "version": "2026_11_21_1",
    "name": "hot-hosts"
}`)
	outA, errA, codeA := run(t, "", "checksum", "--pipeline", a)
	outB, _, codeB := run(t, "", "checksum", "--pipeline", b)
	if codeA != 0 || codeB != 0 || outA != outB {
		t.Fatalf("reordered pipeline checksums differently (%d %d %q):\n%s\n%s", codeA, codeB, errA, outA, outB)
	}
	testutil.Golden(t, filepath.Join("testdata", "checksum.golden"), outA, *update)
	js, _, code := run(t, "", "checksum", "--pipeline", a, "--json")
	if code != 0 || !strings.Contains(js, `"steps": [`) || !strings.Contains(js, `"tag": "*dm:filter"`) {
		t.Fatalf("--json: %d %q", code, js)
	}
}

func TestChecksumBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content, want string
	}{
		{"malformed.json", "{\n  \"name\": \"x\",\n  \"data\": [1,,2]\n}", "malformed.json: invalid JSON at line 3, column 14"},
		{"empty.json", "", "empty.json: invalid JSON: the document is empty or cut short"},
		{"array.json", "[1]", "array.json: not a pipeline: the document is an array, want an object"},
	}
	for _, tt := range tests {
		p := write(t, dir, tt.name, tt.content)
		out, errOut, code := run(t, "", "checksum", "--pipeline", p)
		if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want one line with %q", tt.name, code, out, errOut, tt.want)
		}
	}
}

// botsYML is the shape of bots.yml (SPEC 2.3a).
type botsYML struct {
	Extension struct {
		Namespace      string         `yaml:"namespace"`
		Type           string         `yaml:"type"`
		Version        string         `yaml:"version"`
		Description    string         `yaml:"description"`
		DefaultName    string         `yaml:"default_name"`
		Publisher      string         `yaml:"publisher"`
		SupportEmail   string         `yaml:"support_email"`
		ConfigTemplate map[string]any `yaml:"config_template"`
		Implementation struct {
			Code string `yaml:"code"`
		} `yaml:"implementation"`
	} `yaml:"extension"`
	Bots []struct {
		Name            string `yaml:"name"`
		Description     string `yaml:"description"`
		BotType         string `yaml:"bot_type"`
		ModelType       string `yaml:"model_type"`
		ModelParameters []struct {
			Name        string `yaml:"name"`
			Description string `yaml:"description"`
			Type        string `yaml:"type"`
			Mandatory   bool   `yaml:"mandatory"`
		} `yaml:"model_parameters"`
	} `yaml:"bots"`
}

func TestBotPackageGenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pkg")
	answers := strings.Join([]string{
		"fetch-devices", "source", "2", // bot 1
		"hostname", "text", "yes",
		"limit", "number", "no",
		"push-alerts", "sideways", "sink", "x", "0", // bot 2, with two invalid answers
	}, "\n") + "\n"
	out, errOut, code := run(t, answers, "bot-package", "generate", "--namespace", "acme", "--name", "acme-bots",
		"--version", "22.11.9", "--bots", "2", "--output_dir", dir)
	target := filepath.Join(dir, "bots.yml")
	// bots.yml as SPEC says, then the stub module and its test.
	want := "Generated: " + target + "\nGenerated: " + filepath.Join(dir, "acme.star") + "\nGenerated: " + filepath.Join(dir, "test_acme.star") + "\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	prompts := []string{"Name*:", "Bot Type*:", "Number of bot input parameters*:", "Parameter 1 Name*:", "Parameter 1 Type*", "Parameter 1 Mandatory* (yes/no):"}
	last := -1
	for _, p := range prompts {
		i := strings.Index(errOut, p)
		if i <= last {
			t.Fatalf("prompt %q missing or out of order in %q", p, errOut)
		}
		last = i
	}
	if strings.Count(errOut, "Invalid answer: answer one of: source, sink") != 1 ||
		strings.Count(errOut, "Invalid answer: answer a whole number") != 1 ||
		strings.Count(errOut, "Bot Type*:") != 3 {
		t.Fatalf("invalid answers must re-prompt: %q", errOut)
	}
	data, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	var doc botsYML
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("bots.yml is not SPEC 2.3a YAML: %v\n%s", err, data)
	}
	ext := doc.Extension
	if ext.Namespace != "acme" || ext.Version != "22.11.9" || ext.DefaultName != "acme-bots" || ext.Implementation.Code == "" {
		t.Errorf("extension = %+v", ext)
	}
	for _, k := range []string{"hostname", "port", "uri_suffix", "client_id", "secret", "$secure", "$mandatory", "$labels"} {
		if _, ok := ext.ConfigTemplate[k]; !ok {
			t.Errorf("config_template lacks %s", k)
		}
	}
	if len(doc.Bots) != 2 {
		t.Fatalf("bots = %+v", doc.Bots)
	}
	b1, b2 := doc.Bots[0], doc.Bots[1]
	if b1.Name != "fetch-devices" || b1.BotType != "source" || b1.ModelType != "api" || len(b1.ModelParameters) != 2 {
		t.Errorf("bot 1 = %+v", b1)
	}
	if p := b1.ModelParameters[0]; p.Name != "hostname" || p.Type != "text" || !p.Mandatory {
		t.Errorf("parameter 1 = %+v", p)
	}
	if p := b1.ModelParameters[1]; p.Name != "limit" || p.Type != "number" || p.Mandatory {
		t.Errorf("parameter 2 = %+v", p)
	}
	if b2.Name != "push-alerts" || b2.BotType != "sink" || len(b2.ModelParameters) != 0 {
		t.Errorf("bot 2 = %+v", b2)
	}

	// A second run must not overwrite the file.
	_, errOut, code = run(t, answers, "bot-package-generate", "--namespace", "acme", "--name", "x", "--output_dir", dir)
	if code != 1 || !strings.Contains(errOut, "exists already") {
		t.Fatalf("overwrite: %d %q", code, errOut)
	}
}

func TestBotPackageGenerateEndOfInput(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := run(t, "fetch\n", "bot-package", "generate", "--namespace", "acme", "--name", "x", "--output_dir", dir)
	if code != 1 || !strings.Contains(errOut, `error: no answer to "Bot Type*:"`) {
		t.Fatalf("end of input: %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "bots.yml")); !os.IsNotExist(err) {
		t.Fatal("no bots.yml may be written when the answers stop early")
	}
}

// TestAddHelpShowsFields: the add help of the artifact kinds whose
// documents no other help describes names their fields (from the kind's
// schema) and shows an example.
func TestAddHelpShowsFields(t *testing.T) {
	for _, group := range []string{"stack", "subscription", "synthetics", "site-profile", "staging-area", "fmt-template"} {
		out, errOut, code := run(t, "", group, "add", "-h")
		if code != 0 || !strings.Contains(out, "\nFields (* required):\n  name*") || !strings.Contains(out, "\nExample:\n\n    name: ") {
			t.Errorf("%s add -h: exit %d\n%s%s", group, code, out, errOut)
		}
	}
}
