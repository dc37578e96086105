// Package release reads and checks a build of the fabric, as `make dist`
// writes it and `client update` and `fabric upgrade` take it: a directory
// holding the binaries (client, client-data, fabricd), VERSION (the
// build's version, one line) and SHA256SUMS (sha256sum's format: a
// checksum and a name a line) naming every binary.
package release

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The files of a build besides its binaries.
const (
	SumsFile    = "SHA256SUMS"
	VersionFile = "VERSION"
)

// Binaries are the programs a build holds.
var Binaries = []string{"client", "client-data", "fabricd"}

// maxMeta bounds the bytes read of VERSION and SHA256SUMS.
const maxMeta = 64 << 10

// Build is a build directory read by Open.
type Build struct {
	// Dir is the directory, absolute.
	Dir string
	// Version is VERSION's line.
	Version string
	// Sums are SHA256SUMS's checksums (lower-case hex) by file name.
	Sums map[string]string
}

// Open reads the build in dir: its VERSION and SHA256SUMS, which must name
// every binary. It does not read the binaries (Verify does).
func Open(dir string) (*Build, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a build directory (make dist writes one)", dir)
	}
	b := &Build{Dir: abs}
	v, err := readSmall(filepath.Join(abs, VersionFile))
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", dir, err)
	}
	if b.Version = strings.TrimSpace(string(v)); b.Version == "" || strings.ContainsAny(b.Version, " \t\n") {
		return nil, fmt.Errorf("build %s: %s holds no version", dir, VersionFile)
	}
	data, err := readSmall(filepath.Join(abs, SumsFile))
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", dir, err)
	}
	if b.Sums, err = ParseSums(data); err != nil {
		return nil, fmt.Errorf("build %s: %w", dir, err)
	}
	for _, name := range Binaries {
		if b.Sums[name] == "" {
			return nil, fmt.Errorf("build %s: %s names no %s", dir, SumsFile, name)
		}
	}
	return b, nil
}

// Path is the path of a file of the build.
func (b *Build) Path(name string) string { return filepath.Join(b.Dir, name) }

// Verify checks that each binary named (all when none) is there, is a
// regular executable file, and has SHA256SUMS's checksum.
func (b *Build) Verify(names ...string) error {
	if len(names) == 0 {
		names = Binaries
	}
	for _, name := range names {
		want, ok := b.Sums[name]
		if !ok {
			return fmt.Errorf("build %s: %s names no %s", b.Dir, SumsFile, name)
		}
		got, err := FileSum(b.Path(name))
		if err != nil {
			return fmt.Errorf("build %s: %w", b.Dir, err)
		}
		if got != want {
			return fmt.Errorf("build %s: %s's checksum is %s, not %s's %s: the file is damaged or not this build's", b.Dir, name, got[:12], SumsFile, want[:12])
		}
	}
	return nil
}

// ParseSums reads SHA256SUMS (sha256sum's format: a checksum and a name
// a line; a name is a file of the build, never a path): the checksums,
// lower-case hex, by name.
func ParseSums(data []byte) (map[string]string, error) {
	sums := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		name = strings.TrimPrefix(strings.TrimSpace(name), "*")
		if _, err := hex.DecodeString(sum); err != nil || !ok || len(sum) != 64 || name == "" || strings.ContainsAny(name, "/\\") {
			return nil, fmt.Errorf("%s line %d is not \"SHA256  NAME\"", SumsFile, n)
		}
		sums[name] = strings.ToLower(sum)
	}
	return sums, nil
}

// Sum is the SHA-256 of a file, lower-case hex.
func Sum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FileSum is the SHA-256 of a regular executable file, lower-case hex.
func FileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s is missing", filepath.Base(path))
		}
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", filepath.Base(path))
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s is missing", filepath.Base(path))
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMeta+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxMeta {
		return nil, fmt.Errorf("%s is over %d KiB", filepath.Base(path), maxMeta>>10)
	}
	return data, nil
}

// Seal writes VERSION (version) and SHA256SUMS (every binary's checksum)
// in dir, which holds the binaries: a build directory as make dist
// writes one.
func Seal(dir, version string) error {
	var sums strings.Builder
	for _, name := range Binaries {
		sum, err := FileSum(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("build %s: %w", dir, err)
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, name)
	}
	if err := os.WriteFile(filepath.Join(dir, SumsFile), []byte(sums.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, VersionFile), []byte(version+"\n"), 0o644)
}
