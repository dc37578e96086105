package pack

import (
	"archive/tar"
	"bytes"
	"maps"
	"strings"
	"testing"
)

// botManifest is a pack of a bot package and a pipeline calling its bot.
const botManifest = `name: bots
version: 1.0.0
common_deploy_vars:
  - {name: region, default: eu-west}
artifacts:
  pipeline:
    - {name: graded, file: pipelines/graded.pipeline}
  bot_package:
    - {name: netops-tools, file: bot_packages/netops-tools}
`

// botFiles are the files of botManifest's pack: the bot package's module
// has braces that are no deploy variable (code is not rendered).
func botFiles() map[string][]byte {
	return map[string][]byte{
		"pipelines/graded.pipeline":                     []byte("@dm:empty\n--> @netops:grade region = '{{ region }}'\n"),
		"bot_packages/netops-tools/bots.yml":            []byte("extension: {namespace: netops, default_name: netops-tools, version: 1.0.0}\n"),
		"bot_packages/netops-tools/tools.star":          []byte("def grade(frame, params, config):\n    return [{\"t\": \"{{ not_a_var }}\"}]\n"),
		"bot_packages/netops-tools/fixtures/sites.json": []byte("[{\"devices\": 3}]\n"),
		"bot_packages/netops-tools-old/README.md":       []byte("another folder, not the package's\n"),
	}
}

// writeRead writes a pack of the manifest and files and reads it back.
func writeRead(t *testing.T, manifest string, files map[string][]byte, l Limits) (*Pack, error) {
	t.Helper()
	m, err := ParseManifest([]byte(manifest))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := Write(&b, m, files); err != nil {
		return nil, err
	}
	return Read(&b, "bots.tar.gz", l)
}

func TestBotPackageFolder(t *testing.T) {
	p, err := writeRead(t, botManifest, botFiles(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Manifest.Artifacts[0].Type; got != TypeBotPackage {
		t.Fatalf("the bot package is not first (before the pipeline that calls it): %s", got)
	}
	rendered, err := p.Render(ScopeCommon, map[string]string{"region": "us"})
	if err != nil {
		t.Fatal(err)
	}
	r := rendered[0]
	files, err := FolderFiles(r.Data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for name, data := range botFiles() {
		if rest, ok := strings.CutPrefix(name, "bot_packages/netops-tools/"); ok {
			want[rest] = data
		}
	}
	if !maps.EqualFunc(files, want, bytes.Equal) {
		t.Fatalf("the rendered folder holds %q, want %q (untouched)", files, want)
	}
	if sum, err := Checksum(TypeBotPackage, r.Data); err != nil || sum != r.Checksum || sum != FolderChecksum(want) {
		t.Fatalf("checksum %s %v, rendered %s", sum, err, r.Checksum)
	}
	if text := string(r.DiffText()); !strings.Contains(text, "=== tools.star ===\ndef grade") {
		t.Errorf("diff text:\n%s", text)
	}
	if !strings.Contains(string(rendered[1].Data), "region = 'us'") {
		t.Errorf("the pipeline was not rendered: %s", rendered[1].Data)
	}

	// A changed module, a file added or renamed: another checksum, and a
	// comparison calls the package changed.
	for _, tc := range []struct {
		name string
		edit func(map[string][]byte)
	}{
		{"module changed", func(f map[string][]byte) { f["tools.star"] = append(f["tools.star"], '#') }},
		{"file added", func(f map[string][]byte) { f["extra.star"] = nil }},
		{"file renamed", func(f map[string][]byte) { f["tool.star"] = f["tools.star"]; delete(f, "tools.star") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := maps.Clone(want)
			tc.edit(changed)
			sum := FolderChecksum(changed)
			if sum == r.Checksum {
				t.Fatal("same checksum")
			}
			rep := Compare(Side{Items: []Item{{Type: TypeBotPackage, Name: "netops-tools", Checksum: r.Checksum}}},
				Side{Items: []Item{{Type: TypeBotPackage, Name: "netops-tools", Checksum: sum}}}, Summary{})
			if rep.Rows[0].ChangeType != ChangeChanged {
				t.Fatalf("change %s", rep.Rows[0].ChangeType)
			}
		})
	}
}

func TestBotPackageFolderRefused(t *testing.T) {
	noManifest := botFiles()
	delete(noManifest, "bot_packages/netops-tools/bots.yml")
	big := botFiles()
	big["bot_packages/netops-tools/big.star"] = bytes.Repeat([]byte("#"), 2000)
	customer := strings.Replace(botManifest, "file: bot_packages/netops-tools}", "file: bot_packages/netops-tools, scope: customer}", 1)
	for _, tc := range []struct {
		name     string
		manifest string
		files    map[string][]byte
		limits   Limits
		want     string
	}{
		{"no bots.yml", botManifest, noManifest, Limits{}, `manifest.yaml: artifact bot_package "netops-tools": folder bot_packages/netops-tools has no bots.yml at its top`},
		{"customer scope", customer, botFiles(), Limits{}, `manifest.yaml: artifact bot_package "netops-tools": a bot package cannot be of scope customer`},
		{"a module over the pack's file limit", botManifest, big, Limits{MaxFile: 1000}, "bots.tar.gz: entry bot_packages/netops-tools/big.star is over the limit of a file, 1000 B"},
		{"over the pack's total", botManifest, big, Limits{MaxSize: 1500}, "bots.tar.gz is over its limit of 1500 B uncompressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := writeRead(t, tc.manifest, tc.files, tc.limits)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}

func TestFolderFilesRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []tarEntry
		want  string
	}{
		{"dot dot", []tarEntry{{name: "../bots.yml", data: "x"}}, `has ".." in its path`},
		{"absolute", []tarEntry{{name: "/bots.yml", data: "x"}}, "has an absolute path"},
		{"link", []tarEntry{{name: "bots.yml", typ: tar.TypeSymlink, linkname: "/etc/passwd"}}, "links are refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FolderFiles(gz(t, buildTar(t, tc.files)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
	if _, err := FolderFiles([]byte("not an archive")); err == nil || !strings.Contains(err.Error(), "not a .tar.gz") {
		t.Fatalf("not an archive: %v", err)
	}
}
