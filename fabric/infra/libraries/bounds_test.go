package libraries

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// zeros is an sdist NAME-VERSION.tar.gz holding one file of size zero
// bytes (a few KiB packed).
func zeros(t *testing.T, top string, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: top + "/big.dat", Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(tw, zeroReader{}, size); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// place writes library files straight into a package directory's
// subdirectory (as a host's disk may hold them, whatever install
// allowed): body is the file's content, or with sparse > 0 a file of
// that size holding no data.
func place(t *testing.T, dir, sub, file string, body []byte, sparse int64) {
	t.Helper()
	p := filepath.Join(dir, sub, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, body, 0o600); err != nil {
		t.Fatal(err)
	}
	if sparse > 0 {
		if err := os.Truncate(p, sparse); err != nil {
			t.Fatal(err)
		}
	}
}

// small is a library's sdist with one module.
func small(t *testing.T, file string) []byte {
	return sdist(t, map[string]string{strings.TrimSuffix(file, ".tar.gz") + "/mod.star": "x = 1\n"})
}

// many places n small libraries fabric_lNN-1.0 in sub.
func many(t *testing.T, dir, sub string, n int) {
	for i := range n {
		f := fmt.Sprintf("fabric_l%02d-1.0.tar.gz", i)
		place(t, dir, sub, f, small(t, f), 0)
	}
}

func errs(list []error) string {
	var s []string
	for _, e := range list {
		s = append(s, e.Error())
	}
	sort.Strings(s)
	return strings.Join(s, "\n")
}

// TestStageBounds: library install (Stage) refuses a file that would take
// the package directory over MaxLibraries or MaxDirSize, or that unpacks
// to more than MaxLoaded, with one line naming the bound; a new version
// of a library it holds is staged at MaxLibraries.
func TestStageBounds(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		file  string
		body  func(t *testing.T) []byte
		err   string
	}{
		{name: "64 libraries, a new one", setup: func(t *testing.T, dir string) { many(t, dir, InstalledDir, MaxLibraries) },
			file: "fabric_new-1.0.tar.gz", err: "fabric_new-1.0.tar.gz is not staged: the pod's package directory would hold more than 64 libraries, the most it may"},
		{name: "64 libraries, staged and installed", setup: func(t *testing.T, dir string) {
			many(t, dir, InstalledDir, MaxLibraries-1)
			place(t, dir, StagedDir, "site_x-1.0.tar.gz", small(t, "site_x-1.0.tar.gz"), 0)
		}, file: "fabric_new-1.0.tar.gz", err: "more than 64 libraries"},
		{name: "64 libraries, a new version of one", setup: func(t *testing.T, dir string) { many(t, dir, InstalledDir, MaxLibraries) },
			file: "fabric_l07-2.0.tar.gz"},
		{name: "the directory full", setup: func(t *testing.T, dir string) {
			for i := range 4 {
				place(t, dir, InstalledDir, fmt.Sprintf("fabric_big%d-1.0.tar.gz", i), nil, MaxDirSize/4)
			}
		}, file: "fabric_new-1.0.tar.gz", err: "fabric_new-1.0.tar.gz is not staged: the pod's package directory would hold more than 256 MiB of library files, the most it may (256 MiB without it)"},
		{name: "the directory nearly full", setup: func(t *testing.T, dir string) {
			place(t, dir, InstalledDir, "fabric_big-1.0.tar.gz", nil, MaxDirSize/2)
			place(t, dir, StagedDir, "fabric_big2-1.0.tar.gz", nil, MaxDirSize/2-100)
		}, file: "fabric_new-1.0.tar.gz", err: "more than 256 MiB of library files"},
		{name: "a staged version replaced", setup: func(t *testing.T, dir string) {
			place(t, dir, InstalledDir, "fabric_big-1.0.tar.gz", nil, MaxDirSize/2)
			place(t, dir, StagedDir, "fabric_new-1.0.tar.gz", nil, MaxDirSize/2-100)
		}, file: "fabric_new-2.0.tar.gz"},
		{name: "unpacks past what a pod loads", file: "fabric_zeros-1.0.tar.gz",
			body: func(t *testing.T) []byte { return zeros(t, "fabric_zeros-1.0", MaxLoaded+1) },
			err:  "fabric_zeros-1.0.tar.gz is not staged: it unpacks to more than 64 MiB, the most a pod loads of all its libraries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.setup != nil {
				c.setup(t, dir)
			}
			n, err := Parse(c.file)
			if err != nil {
				t.Fatal(err)
			}
			body := small(t, c.file)
			if c.body != nil {
				body = c.body(t)
			}
			err = Stage(dir, n, bytes.NewReader(body))
			if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("Stage: %v, want %q", err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("not one line: %q", err)
			}
			_, staged := os.Stat(filepath.Join(dir, StagedDir, c.file))
			if (c.err == "") != (staged == nil) {
				t.Fatalf("staged: %v, want it staged: %v", staged, c.err == "")
			}
			if left, _ := filepath.Glob(filepath.Join(dir, StagedDir, ".tmp-*")); len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

// TestStartBounds: a pod that finds its package directory over a bound
// when it starts installs (Promote) and loads (Installed) the libraries
// that fit, by name, and says of each other which bound it is over.
func TestStartBounds(t *testing.T) {
	for _, c := range []struct {
		name     string
		setup    func(t *testing.T, dir string)
		promoted string // what Promote refuses
		loaded   int    // how many libraries Installed loads
		refused  string // what Installed refuses
		missing  string // a library not loaded
	}{
		{name: "a staged library past 64", setup: func(t *testing.T, dir string) {
			many(t, dir, InstalledDir, MaxLibraries)
			place(t, dir, StagedDir, "site_new-1.0.tar.gz", small(t, "site_new-1.0.tar.gz"), 0)
			place(t, dir, StagedDir, "fabric_l03-2.0.tar.gz", small(t, "fabric_l03-2.0.tar.gz"), 0)
		}, promoted: "site_new-1.0.tar.gz is not installed: the pod's package directory would hold more than 64 libraries, the most it may",
			loaded: MaxLibraries, missing: "site_new"},
		{name: "installed libraries past 64", setup: func(t *testing.T, dir string) { many(t, dir, InstalledDir, MaxLibraries+1) },
			loaded: MaxLibraries, refused: "library fabric_l64-1.0.tar.gz is not loaded: a pod loads at most 64 libraries", missing: "fabric_l64"},
		{name: "a staged file past 256 MiB", setup: func(t *testing.T, dir string) {
			place(t, dir, InstalledDir, "fabric_a-1.0.tar.gz", small(t, "fabric_a-1.0.tar.gz"), 0)
			place(t, dir, InstalledDir, "fabric_pad-1.0.tar.gz", nil, MaxDirSize-10)
			place(t, dir, StagedDir, "fabric_b-1.0.tar.gz", small(t, "fabric_b-1.0.tar.gz"), 0)
		}, promoted: "fabric_b-1.0.tar.gz is not installed: the pod's package directory would hold more than 256 MiB of library files",
			loaded: 1, refused: "library fabric_pad-1.0.tar.gz is not loaded: it is larger than 64 MiB", missing: "fabric_b"},
		{name: "a file past 64 MiB", setup: func(t *testing.T, dir string) {
			place(t, dir, InstalledDir, "fabric_a-1.0.tar.gz", small(t, "fabric_a-1.0.tar.gz"), 0)
			place(t, dir, InstalledDir, "fabric_huge-1.0.tar.gz", nil, MaxSize+1)
		}, loaded: 1, refused: "library fabric_huge-1.0.tar.gz is not loaded: it is larger than 64 MiB", missing: "fabric_huge"},
		{name: "libraries past 64 MiB of memory", setup: func(t *testing.T, dir string) {
			place(t, dir, InstalledDir, "fabric_a-1.0.tar.gz", zeros(t, "fabric_a-1.0", 40<<20), 0)
			place(t, dir, InstalledDir, "fabric_b-1.0.tar.gz", zeros(t, "fabric_b-1.0", 40<<20), 0)
			place(t, dir, InstalledDir, "fabric_c-1.0.tar.gz", small(t, "fabric_c-1.0.tar.gz"), 0)
		}, loaded: 2, refused: "library fabric_b-1.0.tar.gz is not loaded: the pod's libraries would take more than 64 MiB of memory, the most a pod loads (40 MiB loaded)",
			missing: "fabric_b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(t, dir)
			installed, refused, err := Promote(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := errs(refused); (c.promoted == "") != (got == "") || !strings.Contains(got, c.promoted) {
				t.Fatalf("Promote refused %q, want %q", got, c.promoted)
			}
			if left, _ := Staged(dir); len(left) > 0 {
				t.Fatalf("left staged: %v", left)
			}
			if _, ok := installed[c.missing]; ok && c.promoted != "" {
				t.Fatalf("%s installed", c.missing)
			}
			libs, refused, err := Installed(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := errs(refused); (c.refused == "") != (got == "") || !strings.Contains(got, c.refused) {
				t.Fatalf("Installed refused %q, want %q", got, c.refused)
			}
			if len(libs) != c.loaded || libs[c.missing] != nil {
				t.Fatalf("loaded %d libraries (%s among them: %v), want %d", len(libs), c.missing, libs[c.missing] != nil, c.loaded)
			}
		})
	}
}
