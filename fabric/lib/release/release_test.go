package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBuild writes a build directory as make dist does, with stand-in
// binaries.
func writeBuild(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range Binaries {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho "+name+" "+version+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := Seal(dir, version); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestOpenAndVerify(t *testing.T) {
	dir := writeBuild(t, "8.1.0.1")
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b.Version != "8.1.0.1" || len(b.Sums) != 3 {
		t.Fatalf("%+v", b)
	}
	if err := b.Verify(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(dir string)
		want   string
	}{
		{"damaged", func(d string) { os.WriteFile(filepath.Join(d, "fabricd"), []byte("x"), 0o755) }, "fabricd's checksum is"},
		{"missing", func(d string) { os.Remove(filepath.Join(d, "client")) }, "client is missing"},
		{"not executable", func(d string) { os.Chmod(filepath.Join(d, "client-data"), 0o644) }, "client-data is not an executable file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := writeBuild(t, "8.1.0.1")
			tc.break_(d)
			b, err := Open(d)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Verify(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		break_ func(dir string)
		want   string
	}{
		{"no version", func(d string) { os.Remove(filepath.Join(d, VersionFile)) }, "VERSION is missing"},
		{"empty version", func(d string) { os.WriteFile(filepath.Join(d, VersionFile), nil, 0o644) }, "VERSION holds no version"},
		{"bad sums", func(d string) { os.WriteFile(filepath.Join(d, SumsFile), []byte("xyz client\n"), 0o644) }, "SHA256SUMS line 1"},
		{"short sums", func(d string) {
			data, _ := os.ReadFile(filepath.Join(d, SumsFile))
			os.WriteFile(filepath.Join(d, SumsFile), []byte(strings.SplitN(string(data), "\n", 2)[0]+"\n"), 0o644)
		}, "SHA256SUMS names no client-data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := writeBuild(t, "8.1.0.1")
			tc.break_(d)
			if _, err := Open(d); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Open(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "is not a build directory") {
		t.Fatalf("%v", err)
	}
}
