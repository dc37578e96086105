package cli

import (
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var execCommand = exec.Command

// writeGz writes content gzipped at path.
func writeGz(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(content))
	zw.Close()
	f.Close()
}
