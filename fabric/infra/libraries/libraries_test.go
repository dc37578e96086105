package libraries

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		file, pkg, version, kind, err string
	}{
		{file: "fabric_utils-1.2.0.tar.gz", pkg: "fabric_utils", version: "1.2.0", kind: Sdist},
		{file: "site-Net.Tools-10.0.tar.gz", pkg: "site_net_tools", version: "10.0", kind: Sdist},
		{file: "fabric_utils-2.0-py3-none-any.whl", pkg: "fabric_utils", version: "2.0", kind: Wheel},
		{file: "Fabric_X-3-1-py3-none-any.whl", pkg: "fabric_x", version: "3", kind: Wheel},
		{file: "utils-1.0.tar.gz", err: "must begin with fabric_ or site_"},
		{file: "fabric-1.0.tar.gz", err: "must begin with fabric_ or site_"},
		{file: "fabric_utils.tar.gz", err: "has no version"},
		{file: "fabric_utils.whl", err: "has no version"},
		{file: "fabric_utils-1.0.whl", err: "is not a wheel's name"},
		{file: "fabric_utils-.tar.gz", err: "has no version"},
		{file: "fabric_utils-1.0rc1.tar.gz", err: "not dotted numbers"},
		{file: "fabric_utils-1.0.zip", err: "neither a .tar.gz nor a .whl"},
		{file: "../fabric_utils-1.0.tar.gz", err: "not a file name"},
	} {
		n, err := Parse(c.file)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q): error %v, want one with %q", c.file, err, c.err)
			}
			continue
		}
		if err != nil || n.Package != c.pkg || n.Version != c.version || n.Kind != c.kind {
			t.Errorf("Parse(%q) = %+v, %v; want %s %s %s", c.file, n, err, c.pkg, c.version, c.kind)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0.0", 0}, {"1.2", "1.10", -1}, {"2", "1.99.99", 1}, {"", "0.1", -1},
		{"01.2", "1.2", 0}, {"100000000000000000000", "99999999999999999999", 1},
	} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"fabric_utils-1.2.0.tar.gz", "site_x-1-1-py3-none-any.whl", "x.whl", "-.tar.gz", "fabric_-1.tar.gz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			return
		}
		if !hasPrefix(n.Package) || n.Version == "" || n.Filename != s || CompareVersions(n.Version, n.Version) != 0 {
			t.Fatalf("Parse(%q) = %+v", s, n)
		}
	})
}

// sdist returns a .tar.gz of files (name: body; a body "->x" is a link
// to x).
func sdist(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}
		if target, ok := strings.CutPrefix(body, "->"); ok {
			h = &tar.Header{Name: name, Linkname: target, Typeflag: tar.TypeSymlink}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func TestCheckArchive(t *testing.T) {
	var whl bytes.Buffer
	zw := zip.NewWriter(&whl)
	w, _ := zw.Create("fabric_x/mod.star")
	w.Write([]byte("x = 1\n"))
	zw.Close()
	for _, c := range []struct {
		name, kind string
		data       []byte
		err        string
	}{
		{"sdist", Sdist, sdist(t, map[string]string{"fabric_x-1.0/mod.star": "x = 1\n"}), ""},
		{"wheel", Wheel, whl.Bytes(), ""},
		{"dotdot", Sdist, sdist(t, map[string]string{"../evil.star": "x"}), "'..'"},
		{"absolute", Sdist, sdist(t, map[string]string{"/etc/evil": "x"}), "absolute"},
		{"link", Sdist, sdist(t, map[string]string{"a.star": "->/etc/passwd"}), "links are refused"},
		{"not gzip", Sdist, []byte("plain text"), "not a gzip'd tar"},
		{"not zip", Wheel, []byte("plain text"), "not a zip"},
	} {
		err := CheckArchive(c.kind, c.data)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: CheckArchive: %v, want %q", c.name, err, c.err)
		}
	}
}

func TestStagePromoteInstalled(t *testing.T) {
	dir := t.TempDir()
	stage := func(file string, body string) {
		t.Helper()
		n, err := Parse(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := Stage(dir, n, bytes.NewReader(sdist(t, map[string]string{strings.TrimSuffix(file, ".tar.gz") + "/lib/mod.star": body}))); err != nil {
			t.Fatal(err)
		}
	}
	latest := []api.LibraryFile{{Package: "fabric_x", Version: "1.1", Filename: "fabric_x-1.1.tar.gz"}}
	status := func(installed, staged map[string]Name) string {
		return Rows(latest, installed, staged)[0].Status
	}
	if got := status(nil, nil); got != api.LibraryNotInstalled {
		t.Errorf("nothing: %s", got)
	}
	stage("fabric_x-1.0.tar.gz", "v = 1\n")
	staged, _ := Staged(dir)
	if got := status(nil, staged); got != api.LibraryStaged {
		t.Errorf("staged: %s", got)
	}
	installed, refused, err := Promote(dir)
	if err != nil || len(refused) > 0 {
		t.Fatal(err, refused)
	}
	staged, _ = Staged(dir)
	if got := status(installed, staged); got != api.LibraryPatchAvailable {
		t.Errorf("1.0 installed, 1.1 stored: %s", got)
	}
	stage("fabric_x-1.1.tar.gz", "v = 2\n")
	if installed, refused, err = Promote(dir); err != nil || len(refused) > 0 {
		t.Fatal(err, refused)
	}
	if got := status(installed, nil); got != api.LibraryUpToDate {
		t.Errorf("1.1 installed: %s", got)
	}
	if old, _ := filepath.Glob(filepath.Join(dir, InstalledDir, "*")); len(old) != 1 {
		t.Errorf("installed files: %v, want the newest only", old)
	}
	fsys, refused, err := Installed(dir)
	if err != nil || len(refused) > 0 {
		t.Fatal(err, refused)
	}
	body, err := fs.ReadFile(fsys["fabric_x"], "lib/mod.star")
	if err != nil || string(body) != "v = 2\n" {
		t.Errorf("lib/mod.star of fabric_x: %q, %v", body, err)
	}
	if err := Stage(dir, Name{Package: "fabric_big", Version: "1", Filename: "fabric_big-1.tar.gz"}, bytes.NewReader(make([]byte, MaxSize+1))); err == nil {
		t.Error("a file over MaxSize was staged")
	}
	if left, _ := os.ReadDir(filepath.Join(dir, StagedDir)); len(left) != 0 {
		t.Errorf("staged after a refused file: %v", left)
	}
}

func FuzzCheckArchive(f *testing.F) {
	var whl bytes.Buffer
	zw := zip.NewWriter(&whl)
	w, _ := zw.Create("fabric_x/mod.star")
	w.Write([]byte("x = 1\n"))
	zw.Close()
	f.Add(true, whl.Bytes())
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "fabric_x-1/mod.star", Mode: 0o644, Size: 6, Typeflag: tar.TypeReg})
	tw.Write([]byte("x = 1\n"))
	tw.Close()
	gz.Close()
	f.Add(false, tgz.Bytes())
	f.Fuzz(func(t *testing.T, wheel bool, data []byte) {
		kind := Sdist
		if wheel {
			kind = Wheel
		}
		files, err := unpack(kind, data)
		if err != nil {
			return
		}
		for name := range files {
			if checkPath(name) != nil {
				t.Fatalf("unpacked an entry with a bad path %q", name)
			}
		}
		if _, err := filesFS(files); err != nil {
			t.Fatalf("filesFS: %v", err)
		}
	})
}
