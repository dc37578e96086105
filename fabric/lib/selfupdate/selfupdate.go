// Package selfupdate replaces the client's binaries (client and
// client-data, and fabricd when it is beside them) with those of a newer
// build, as `make dist` writes one (package release), read from a
// directory or an http(s) URL of one: every file is fetched into the
// binaries' own directory and checked against the build's SHA256SUMS
// before anything is replaced; each file is then renamed into place
// (atomic within the directory), fabricd and client-data before the
// client, and a failure half-way puts back what was replaced. The
// binaries replaced are kept in PreviousDir for Rollback.
package selfupdate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/release"
)

// PreviousDir is the directory, beside the binaries, that keeps those an
// update replaced (with their VERSION and SHA256SUMS): Rollback puts
// them back.
const PreviousDir = ".fabric-previous"

// Bounds of an update.
const (
	// MaxBinary is the largest binary fetched.
	MaxBinary = 1 << 30
	// maxMeta bounds VERSION and SHA256SUMS.
	maxMeta = 64 << 10
	// DefaultTimeout bounds a whole update from a URL.
	DefaultTimeout = 10 * time.Minute
)

// Required are the binaries an update always writes; fabricd only
// when it is in the directory already.
var Required = []string{"client", "client-data"}

// Options say what to update and from where.
type Options struct {
	// Dir holds the binaries (the running client's directory).
	Dir string
	// From is a build directory or an http(s) URL of one.
	From string
	// Current is the running client's version.
	Current string
	// Timeout bounds the fetch from a URL (0: DefaultTimeout).
	Timeout time.Duration
}

// File is what an update does with one binary.
type File struct {
	Name string `json:"name"`
	// Installed and Available are the checksums (sha256, hex) of the
	// installed file ("" when there is none) and of the build's.
	Installed string `json:"installed_sha256"`
	Available string `json:"available_sha256"`
	// Action is "replace", "install" (none was there) or "unchanged".
	Action string `json:"action"`
}

// Report is what an update (or a check, or a rollback) found and did.
type Report struct {
	Dir       string `json:"dir"`
	From      string `json:"from"`
	Current   string `json:"current_version"`
	Available string `json:"available_version"`
	Files     []File `json:"files"`
	// Changed says whether binaries were replaced (false for a check,
	// or when every file was the build's already).
	Changed bool `json:"changed"`
	// Previous is where the replaced binaries are kept.
	Previous string `json:"previous,omitempty"`
}

// rename is os.Rename; tests make it fail half-way.
var rename = os.Rename

// names are the binaries of dir an update writes.
func names(dir string) ([]string, error) {
	if st, err := os.Stat(filepath.Join(dir, "client")); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s holds no client binary: give the directory of the client's binaries", dir)
	}
	out := slices.Clone(Required)
	if st, err := os.Stat(filepath.Join(dir, "fabricd")); err == nil && st.Mode().IsRegular() {
		out = append(out, "fabricd")
	}
	return out, nil
}

// plan compares the installed binaries with the build's sums.
func plan(dir string, bins []string, sums map[string]string) ([]File, bool, error) {
	var files []File
	change := false
	for _, n := range bins {
		f := File{Name: n, Available: sums[n], Action: "unchanged"}
		if f.Available == "" {
			return nil, false, fmt.Errorf("the build has no %s", n)
		}
		sum, err := release.Sum(filepath.Join(dir, n))
		switch {
		case errors.Is(err, os.ErrNotExist):
			f.Action = "install"
		case err != nil:
			return nil, false, err
		default:
			f.Installed = sum
			if sum != f.Available {
				f.Action = "replace"
			}
		}
		change = change || f.Action != "unchanged"
		files = append(files, f)
	}
	return files, change, nil
}

// Check reports what an update from o.From would change, touching
// nothing (it reads only the build's VERSION and SHA256SUMS).
func Check(ctx context.Context, o Options) (Report, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	rep, _, _, err := begin(ctx, o)
	return rep, err
}

// begin reads the build's VERSION and SHA256SUMS and compares them with
// the binaries of o.Dir: the report, where the build comes from, and
// whether anything would change.
func begin(ctx context.Context, o Options) (Report, source, bool, error) {
	rep := Report{Dir: o.Dir, From: o.From, Current: o.Current}
	bins, err := names(o.Dir)
	if err != nil {
		return rep, nil, false, err
	}
	src, err := openSource(o)
	if err != nil {
		return rep, nil, false, err
	}
	version, sums, err := src.meta(ctx)
	if err != nil {
		return rep, nil, false, err
	}
	rep.Available = version
	files, change, err := plan(o.Dir, bins, sums)
	rep.Files = files
	return rep, src, change, err
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// Update replaces the binaries of o.Dir with the build's at o.From: all
// fetched and checked first, then each renamed into place, the client
// last; the binaries replaced are kept in PreviousDir. A failure leaves
// the binaries as they were.
func Update(ctx context.Context, o Options) (Report, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	rep, src, change, err := begin(ctx, o)
	if err != nil || !change {
		return rep, err
	}
	files := rep.Files
	stage, err := os.MkdirTemp(o.Dir, ".fabric-update-")
	if err != nil {
		return rep, fmt.Errorf("cannot write in %s: %w", o.Dir, err)
	}
	defer os.RemoveAll(stage)
	for _, f := range files {
		if f.Action == "unchanged" {
			continue
		}
		if err := src.fetch(ctx, f.Name, filepath.Join(stage, f.Name), f.Available); err != nil {
			return rep, err
		}
	}
	if err := install(o.Dir, stage, files, o.Current); err != nil {
		return rep, err
	}
	rep.Changed, rep.Previous = true, filepath.Join(o.Dir, PreviousDir)
	return rep, nil
}

// Rollback puts back the binaries the last update replaced (those kept
// in PreviousDir, checked against its SHA256SUMS); the binaries it
// replaces are kept in their turn, so a second rollback undoes the first.
func Rollback(o Options) (Report, error) {
	prev := filepath.Join(o.Dir, PreviousDir)
	rep := Report{Dir: o.Dir, From: prev, Current: o.Current}
	if _, err := names(o.Dir); err != nil {
		return rep, err
	}
	version, sums, err := readMeta(prev)
	if errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("nothing to roll back to: no %s in %s (client update keeps the binaries it replaces there)", PreviousDir, o.Dir)
	}
	if err != nil {
		return rep, fmt.Errorf("%s: %w", prev, err)
	}
	rep.Available = version
	var bins []string
	for n := range sums {
		bins = append(bins, n)
	}
	slices.Sort(bins)
	files, change, err := plan(o.Dir, bins, sums)
	rep.Files = files
	if err != nil || !change {
		return rep, err
	}
	stage, err := os.MkdirTemp(o.Dir, ".fabric-update-")
	if err != nil {
		return rep, fmt.Errorf("cannot write in %s: %w", o.Dir, err)
	}
	defer os.RemoveAll(stage)
	for _, f := range files {
		if f.Action == "unchanged" {
			continue
		}
		if err := copyChecked(filepath.Join(prev, f.Name), filepath.Join(stage, f.Name), f.Available); err != nil {
			return rep, fmt.Errorf("%s: %w", prev, err)
		}
	}
	if err := install(o.Dir, stage, files, o.Current); err != nil {
		return rep, err
	}
	rep.Changed, rep.Previous = true, prev
	return rep, nil
}

// order puts the client last: until it is replaced the old client runs
// with what it knows, and once it is the rest is new already.
func order(files []File) []File {
	out := slices.Clone(files)
	slices.SortStableFunc(out, func(a, b File) int {
		rank := func(n string) int {
			switch n {
			case "fabricd":
				return 0
			case "client-data":
				return 1
			}
			return 2
		}
		return rank(a.Name) - rank(b.Name)
	})
	return out
}

// install keeps the binaries of dir that files replace in PreviousDir
// (with currentVersion), then renames each staged file of stage into
// dir, the client last; when a rename fails, the files replaced are put
// back from the kept copies.
func install(dir, stage string, files []File, currentVersion string) error {
	keep, err := os.MkdirTemp(dir, ".fabric-previous-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(keep)
	var sums strings.Builder
	for _, f := range files {
		if f.Installed == "" {
			continue
		}
		if err := copyChecked(filepath.Join(dir, f.Name), filepath.Join(keep, f.Name), f.Installed); err != nil {
			return fmt.Errorf("keeping %s for a rollback: %w", f.Name, err)
		}
		fmt.Fprintf(&sums, "%s  %s\n", f.Installed, f.Name)
	}
	if currentVersion == "" {
		currentVersion = "unknown"
	}
	if err := os.WriteFile(filepath.Join(keep, release.VersionFile), []byte(currentVersion+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(keep, release.SumsFile), []byte(sums.String()), 0o644); err != nil {
		return err
	}
	var done []File
	for _, f := range order(files) {
		if f.Action == "unchanged" {
			continue
		}
		if err := rename(filepath.Join(stage, f.Name), filepath.Join(dir, f.Name)); err != nil {
			if rerr := restore(dir, keep, done); rerr != nil {
				return fmt.Errorf("replacing %s: %v; putting back what was replaced failed too: %v (the old binaries are in %s)", f.Name, err, rerr, keep)
			}
			return fmt.Errorf("replacing %s: %v (nothing changed: the binaries replaced before it are back)", f.Name, err)
		}
		done = append(done, f)
	}
	// The kept binaries become the rollback's: the previous ones go.
	prev := filepath.Join(dir, PreviousDir)
	old := prev + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(prev, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("updated, but the old binaries are in %s: %w", keep, err)
	}
	if err := os.Rename(keep, prev); err != nil {
		return fmt.Errorf("updated, but the old binaries are in %s: %w", keep, err)
	}
	_ = os.RemoveAll(old)
	return nil
}

// restore puts back the files of done from keep (or removes those
// installed where there was none).
func restore(dir, keep string, done []File) error {
	var errs []error
	for _, f := range done {
		dst := filepath.Join(dir, f.Name)
		if f.Installed == "" {
			if err := os.Remove(dst); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		tmp := dst + ".restore"
		if err := copyChecked(filepath.Join(keep, f.Name), tmp, f.Installed); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Rename(tmp, dst); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// copyChecked copies an executable to dst (mode 0755) and checks its
// checksum is want.
func copyChecked(src, dst, want string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeChecked(in, dst, want, filepath.Base(src))
}

// writeChecked writes r (at most MaxBinary bytes) to dst, executable,
// and checks its checksum is want; dst is removed when it is not.
func writeChecked(r io.Reader, dst, want, name string) error {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(r, MaxBinary+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > MaxBinary {
		err = fmt.Errorf("%s is larger than %d MiB", name, MaxBinary>>20)
	}
	if got := hex.EncodeToString(h.Sum(nil)); err == nil && got != want {
		err = fmt.Errorf("%s's checksum is %s, not SHA256SUMS's %s: the file is damaged or not this build's; nothing was replaced", name, got[:12], want[:12])
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}

// readMeta reads VERSION and SHA256SUMS of a directory.
func readMeta(dir string) (string, map[string]string, error) {
	v, err := os.ReadFile(filepath.Join(dir, release.VersionFile))
	if err != nil {
		return "", nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, release.SumsFile))
	if err != nil {
		return "", nil, err
	}
	sums, err := release.ParseSums(data)
	return strings.TrimSpace(string(v)), sums, err
}

// source is where a build is read from: a directory or a URL.
type source interface {
	meta(ctx context.Context) (version string, sums map[string]string, err error)
	fetch(ctx context.Context, name, dst, want string) error
}

func openSource(o Options) (source, error) {
	if o.From == "" {
		return nil, errors.New("no build to update from: give --from DIR|URL, or set FABRIC_UPDATE_FROM")
	}
	if strings.HasPrefix(o.From, "http://") || strings.HasPrefix(o.From, "https://") {
		return &urlSource{base: strings.TrimRight(o.From, "/"), client: &http.Client{Timeout: o.timeout()}}, nil
	}
	if strings.Contains(o.From, "://") {
		return nil, fmt.Errorf("--from %s: a build directory or an http(s) URL of one", o.From)
	}
	return &dirSource{dir: o.From}, nil
}

type dirSource struct {
	dir string
	b   *release.Build
}

func (s *dirSource) meta(context.Context) (string, map[string]string, error) {
	b, err := release.Open(s.dir)
	if err != nil {
		return "", nil, err
	}
	s.b = b
	return b.Version, b.Sums, nil
}

func (s *dirSource) fetch(_ context.Context, name, dst, want string) error {
	if err := copyChecked(s.b.Path(name), dst, want); err != nil {
		return fmt.Errorf("build %s: %w", s.dir, err)
	}
	return nil
}

type urlSource struct {
	base   string
	client *http.Client
}

// get fetches base/name, or fails naming the URL.
func (s *urlSource) get(ctx context.Context, name string) (*http.Response, error) {
	u := s.base + "/" + name
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
			return nil, fmt.Errorf("timed out fetching %s", u)
		}
		return nil, fmt.Errorf("fetching %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("fetching %s: %s", u, resp.Status)
	}
	return resp, nil
}

func (s *urlSource) small(ctx context.Context, name string) ([]byte, error) {
	resp, err := s.get(ctx, name)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMeta+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s/%s: %v", s.base, name, err)
	}
	if len(data) > maxMeta {
		return nil, fmt.Errorf("%s/%s is over %d KiB", s.base, name, maxMeta>>10)
	}
	return data, nil
}

func (s *urlSource) meta(ctx context.Context) (string, map[string]string, error) {
	v, err := s.small(ctx, release.VersionFile)
	if err != nil {
		return "", nil, err
	}
	version := strings.TrimSpace(string(v))
	if version == "" || strings.ContainsAny(version, " \t\n") {
		return "", nil, fmt.Errorf("%s/%s holds no version", s.base, release.VersionFile)
	}
	data, err := s.small(ctx, release.SumsFile)
	if err != nil {
		return "", nil, err
	}
	sums, err := release.ParseSums(data)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", s.base, err)
	}
	return version, sums, nil
}

func (s *urlSource) fetch(ctx context.Context, name, dst, want string) error {
	resp, err := s.get(ctx, name)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.ContentLength > MaxBinary {
		return fmt.Errorf("%s/%s is larger than %d MiB", s.base, name, MaxBinary>>20)
	}
	if err := writeChecked(resp.Body, dst, want, name); err != nil {
		if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
			return fmt.Errorf("timed out fetching %s/%s", s.base, name)
		}
		return fmt.Errorf("%s: %w", s.base, err)
	}
	return nil
}
