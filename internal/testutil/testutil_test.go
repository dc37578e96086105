package testutil

import (
	"archive/zip"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGoldenUpdateThenCompare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	Golden(t, path, "hello\n", true)
	Golden(t, path, "hello\n", false)
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "hello\n" {
		t.Fatalf("golden file %q, %v", data, err)
	}
}

func TestWriteGz(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b.gz")
	WriteGz(t, path, "line\n")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || string(got) != "line\n" {
		t.Fatalf("read back %q, %v", got, err)
	}
}

func TestZipFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.zip")
	entries := [][2]string{{"a/x.txt", "x"}, {"y", ""}}
	ZipFile(t, path, entries)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var got [][2]string
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		got = append(got, [2]string{f.Name, string(b)})
	}
	if !slices.Equal(got, entries) {
		t.Fatalf("entries %v, want %v", got, entries)
	}
}

func TestBashComplete(t *testing.T) {
	script := `_client() { local cur=${COMP_WORDS[COMP_CWORD]}; COMPREPLY=($(compgen -W "alpha beta 'it''s'" -- "$cur")); }`
	for _, c := range []struct {
		line string
		want []string
	}{
		{"client ", []string{"alpha", "beta", "its"}},
		{"client a", []string{"alpha"}},
		{"client z", nil},
	} {
		got := BashComplete(t, script, t.TempDir(), []string{c.line})
		if !slices.Equal(got[0], c.want) {
			t.Errorf("%q: %v, want %v", c.line, got[0], c.want)
		}
	}
}
