package pack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadGood(t *testing.T) {
	files := sampleFiles()
	byHand := []tarEntry{
		{name: "netops-1.2.0/", typ: tar.TypeDir},
		{name: "netops-1.2.0/manifest.yaml", data: sampleManifest},
		{name: "netops-1.2.0/.DS_Store", data: "\x00\x01junk"},
		{name: "__MACOSX/netops-1.2.0/._manifest.yaml", data: "junk"},
		{name: "./.hidden/x", data: "junk"},
		{name: "pax_global_header", typ: tar.TypeXGlobalHeader},
	}
	for _, p := range sortedKeys(files) {
		byHand = append(byHand, tarEntry{name: "./netops-1.2.0/" + p, data: string(files[p])})
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"written", samplePack(t)},
		{"by hand, in a folder, with hidden files", gz(t, buildTar(t, byHand))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, "netops.tar.gz", tc.data)
			p, err := ReadFile(path, DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Manifest, sampleManifestValue(t)) {
				t.Errorf("manifest %+v", p.Manifest)
			}
			if want := sortedKeys(files); !reflect.DeepEqual(p.Paths(), want) {
				t.Errorf("paths %q, want %q", p.Paths(), want)
			}
			for path, data := range files {
				if got, ok := p.File(path); !ok || !bytes.Equal(got, data) {
					t.Errorf("file %s: %q %v", path, got, ok)
				}
			}
			if _, ok := p.File(ManifestFile); ok {
				t.Error("manifest.yaml is a file of the pack")
			}
		})
	}
}

func TestReadOrder(t *testing.T) {
	m := sampleManifestValue(t)
	var got []string
	for _, a := range m.Artifacts {
		got = append(got, a.Type+"/"+a.Name+"/"+a.Scope+"/"+a.CreationPolicy)
	}
	want := []string{
		"credential/snmp-community/common/fail",
		"pipeline/hosts/common/fail",
		"blueprint/web/single_tenant/skip",
		"dashboard/overview/common/fail",
		"dashboard/customer-view/customer/fail",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("artifacts %q, want %q", got, want)
	}
}

func TestWriteDeterministic(t *testing.T) {
	a, b := samplePack(t), samplePack(t)
	if !bytes.Equal(a, b) {
		t.Fatal("two writes differ")
	}
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		if hdr.Mode != 0o644 || !hdr.ModTime.Equal(archiveTime) || hdr.Uname != "" || hdr.Gname != "" {
			t.Errorf("%s: header %+v", hdr.Name, hdr)
		}
	}
	want := append([]string{ManifestFile}, sortedKeys(sampleFiles())...)
	if !reflect.DeepEqual(names, want) {
		t.Errorf("entries %q, want %q", names, want)
	}
}

func TestWriteRefused(t *testing.T) {
	m := sampleManifestValue(t)
	for _, tc := range []struct {
		name  string
		edit  func(map[string][]byte)
		error string
	}{
		{"missing file", func(f map[string][]byte) { delete(f, "blueprints/web.yaml") }, "manifest.yaml: artifact blueprint \"web\": file blueprints/web.yaml is not in the pack"},
		{"unknown placeholder", func(f map[string][]byte) { f["blueprints/web.yaml"] = []byte("x: {{ customer_name }}") }, "blueprints/web.yaml: placeholder {{ customer_name }} names no deploy variable of scope single_tenant"},
		{"manifest in files", func(f map[string][]byte) { f[ManifestFile] = nil }, "is the manifest"},
		{"bad path", func(f map[string][]byte) { f["../x"] = nil }, "goes outside the pack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := sampleFiles()
			tc.edit(files)
			err := Write(io.Discard, m, files)
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Fatalf("error %v, want %q", err, tc.error)
			}
		})
	}
}

// zeros writes a tar of one file of n zero bytes, gzipped, without
// holding it.
func zeros(t *testing.T, name string, n int64) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: n}); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for left := n; left > 0; left -= int64(len(chunk)) {
		if _, err := tw.Write(chunk[:min(left, int64(len(chunk)))]); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

func TestReadRefused(t *testing.T) {
	small := Limits{MaxEntries: 10, MaxFile: 1 << 10, MaxSize: 4 << 10}
	withManifest := func(entries ...tarEntry) []byte {
		return gz(t, buildTar(t, append([]tarEntry{{name: "manifest.yaml", data: "name: x\nversion: 1\n"}}, entries...)))
	}
	var many []tarEntry
	for i := 0; i < 11; i++ {
		many = append(many, tarEntry{name: "f" + string(rune('a'+i)), data: "x"})
	}
	var big []tarEntry
	for i := 0; i < 5; i++ {
		big = append(big, tarEntry{name: "f" + string(rune('a'+i)), data: strings.Repeat("x", 1000)})
	}
	good := samplePack(t)
	for _, tc := range []struct {
		name   string
		data   []byte
		limits Limits
		error  string
	}{
		{"no manifest", gz(t, buildTar(t, []tarEntry{{name: "a.yaml", data: "x: 1"}})), DefaultLimits, "P has no manifest.yaml at its top"},
		{"manifest in two folders", gz(t, buildTar(t, []tarEntry{{name: "a/manifest.yaml", data: "name: x\nversion: 1\n"}, {name: "b/x", data: "x"}})), DefaultLimits, "P has no manifest.yaml at its top"},
		{"manifest deeper", gz(t, buildTar(t, []tarEntry{{name: "a/b/manifest.yaml", data: "name: x\nversion: 1\n"}})), DefaultLimits, "P has no manifest.yaml at its top"},
		{"empty archive", gz(t, nil), DefaultLimits, "P has no manifest.yaml at its top"},
		{"dot dot", withManifest(tarEntry{name: "a/../../etc/passwd", data: "x"}), DefaultLimits, `P: entry a/../../etc/passwd has ".." in its path`},
		{"absolute", withManifest(tarEntry{name: "/etc/passwd", data: "x"}), DefaultLimits, "P: entry /etc/passwd has an absolute path"},
		{"drive", withManifest(tarEntry{name: "C:\\x", data: "x"}), DefaultLimits, "P: entry C:\\x has an absolute path"},
		{"symlink", withManifest(tarEntry{name: "link", typ: tar.TypeSymlink, linkname: "/etc/passwd"}), DefaultLimits, "P: entry link is a symbolic link (to /etc/passwd): links are refused"},
		{"hidden symlink", withManifest(tarEntry{name: ".link", typ: tar.TypeSymlink, linkname: "/etc"}), DefaultLimits, "P: entry .link is a symbolic link"},
		{"hard link", withManifest(tarEntry{name: "link", typ: tar.TypeLink, linkname: "manifest.yaml"}), DefaultLimits, "P: entry link is a hard link (to manifest.yaml): links are refused"},
		{"device", withManifest(tarEntry{name: "dev", typ: tar.TypeChar}), DefaultLimits, "P: entry dev is a device: devices are refused"},
		{"fifo", withManifest(tarEntry{name: "fifo", typ: tar.TypeFifo}), DefaultLimits, "P: entry fifo is not a file or a folder"},
		{"twice", withManifest(tarEntry{name: "a", data: "x"}, tarEntry{name: "./a", data: "y"}), DefaultLimits, "P: entry ./a is in the archive twice"},
		{"too many entries", withManifest(many...), small, "P has more than 10 entries"},
		{"file too big", withManifest(tarEntry{name: "big", data: strings.Repeat("x", 1025)}), small, "P: entry big is over the limit of a file, 1 KiB"},
		{"total too big", withManifest(big...), small, "P is over its limit of 4 KiB uncompressed (at entry fe)"},
		{"gzip bomb in a hidden file", zeros(t, ".bomb", 10<<20), small, "P is over its limit of 4 KiB uncompressed"},
		{"gzip bomb in a file", zeros(t, "bomb", 10<<20), small, "P: entry bomb is over the limit of a file, 1 KiB"},
		{"gzip bomb, default limits", zeros(t, "__MACOSX/bomb", 100<<20), DefaultLimits, "P is over its limit of 64 MiB uncompressed"},
		{"not gzip", []byte("name: x\nversion: 1\n"), DefaultLimits, "P is not a .tar.gz pack: gzip: invalid header"},
		{"empty file", nil, DefaultLimits, "P is not a .tar.gz pack: the file is empty"},
		{"not tar", gz(t, bytes.Repeat([]byte("not a tar archive\n"), 100)), DefaultLimits, "P is not a .tar.gz pack: archive/tar: invalid tar header"},
		{"truncated gzip", good[:len(good)/2], DefaultLimits, "P is not a .tar.gz pack: unexpected EOF"},
		{"truncated trailer", good[:len(good)-4], DefaultLimits, "P is not a .tar.gz pack: unexpected EOF"},
		{"bad checksum", append(bytes.Clone(good[:len(good)-8]), 1, 2, 3, 4, 5, 6, 7, 8), DefaultLimits, "P is not a .tar.gz pack: gzip: invalid checksum"},
		{"bad manifest", gz(t, buildTar(t, []tarEntry{{name: "manifest.yaml", data: "name: x\nversion: 1\nfoo: 1\n"}})), DefaultLimits, `P: manifest.yaml: line 3: unknown key "foo"`},
		{"file not in the pack", gz(t, buildTar(t, []tarEntry{{name: "manifest.yaml", data: "name: x\nversion: 1\nartifacts:\n  pipeline:\n    - {name: a, file: a.pipeline}\n"}})), DefaultLimits, `P: manifest.yaml: artifact pipeline "a": file a.pipeline is not in the pack`},
		{"file hidden", gz(t, buildTar(t, []tarEntry{{name: "manifest.yaml", data: "name: x\nversion: 1\nartifacts:\n  pipeline:\n    - {name: a, file: .a.pipeline}\n"}, {name: ".a.pipeline", data: "x"}})), DefaultLimits, `P: manifest.yaml: artifact pipeline "a": file ".a.pipeline" is hidden`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Read(bytes.NewReader(tc.data), "P", tc.limits)
			if err == nil {
				t.Fatalf("read %+v", p.Manifest)
			}
			if !strings.HasPrefix(err.Error(), tc.error) {
				t.Errorf("error %q, want %q", err, tc.error)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "none.tar.gz"), DefaultLimits)
	var pe *os.PathError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want an *os.PathError", err)
	}
}

func TestReadWriteRoundTrip(t *testing.T) {
	p, err := Read(bytes.NewReader(samplePack(t)), "netops", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, path := range p.Paths() {
		files[path], _ = p.File(path)
	}
	var b bytes.Buffer
	if err := Write(&b, p.Manifest, files); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), samplePack(t)) {
		t.Error("a pack read and written again differs")
	}
}
