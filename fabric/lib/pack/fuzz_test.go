package pack

import (
	"archive/tar"
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
)

// FuzzParseManifest: any text is refused with one line starting with
// "manifest.yaml: ", or gives a manifest that checks and round-trips
// through MarshalManifest.
func FuzzParseManifest(f *testing.F) {
	for _, seed := range []string{
		sampleManifest,
		"name: x\nversion: 1\n",
		"name: &a x\nversion: *a\n",
		"name: x\nversion: 1\nartifacts:\n  pipeline:\n    - {name: p, file: a/b.pipeline, scope: customer}\n",
		"name: x\nversion: 1\ncommon_deploy_vars:\n  - {name: a, default: 1, secret: true}\n",
		yamldoc.BillionLaughs("name: x\n"),
		"<<: {name: x}\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "manifest.yaml: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if err := m.Check(); err != nil {
			t.Fatalf("parsed manifest does not check: %v", err)
		}
		out, err := MarshalManifest(m)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := ParseManifest(out)
		if err != nil {
			t.Fatalf("marshalled manifest does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip:\n%s\ngot  %#v\nwant %#v", out, back, m)
		}
	})
}

// FuzzRead: any bytes are refused with one line or read as a pack that
// checks, within limits.
func FuzzRead(f *testing.F) {
	f.Add(samplePack(f))
	f.Add(gz(f, buildTar(f, []tarEntry{{name: "p/", typ: tar.TypeDir}, {name: "p/manifest.yaml", data: "name: x\nversion: 1\n"}, {name: "p/.x", data: "x"}})))
	f.Add(gz(f, buildTar(f, []tarEntry{{name: "manifest.yaml", data: "name: x\nversion: 1\n"}, {name: "l", typ: tar.TypeSymlink, linkname: "/"}})))
	f.Add(gz(f, []byte("not a tar")))
	f.Add([]byte{})
	l := Limits{MaxEntries: 20, MaxFile: 4 << 10, MaxSize: 16 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(bytes.NewReader(data), "fuzz", l)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q", err)
			}
			return
		}
		if err := p.Check(); err != nil {
			t.Fatalf("a pack read does not check: %v", err)
		}
		var total int64
		for _, path := range p.Paths() {
			data, _ := p.File(path)
			if int64(len(data)) > l.MaxFile {
				t.Fatalf("%s: %d bytes", path, len(data))
			}
			total += int64(len(data))
		}
		if total > l.MaxSize || len(p.Paths()) > l.MaxEntries {
			t.Fatalf("%d files, %d bytes", len(p.Paths()), total)
		}
	})
}

// FuzzPlaceholders: the placeholders found are names, each appears in
// the text, and a pipeline of the text renders with them.
func FuzzPlaceholders(f *testing.F) {
	for _, seed := range []string{"{{a}} {{ b }} {{ a }}", "{{{x}}}", "{{ .x }} {{", "{{\tx\t}}y{{z}}", ""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		names := Placeholders(data)
		seen := map[string]bool{}
		values := map[string]string{}
		for _, n := range names {
			if seen[n] || !varRE().MatchString(n) || !bytes.Contains(data, []byte(n)) {
				t.Fatalf("placeholder %q of %q", n, data)
			}
			seen[n] = true
			values[n] = "v"
		}
		m := Manifest{Name: "x", Version: "1", Artifacts: []Artifact{{Type: TypePipeline, Name: "p", File: "p"}}}
		out, err := New(m, map[string][]byte{"p": data}).Render(ScopeCommon, values)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		if len(out) != 1 {
			t.Fatalf("%d rendered", len(out))
		}
	})
}
