package libraries

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
)

// The subdirectories of a pod's package directory.
const (
	StagedDir    = "staged"
	InstalledDir = "installed"
)

// Stage writes a library file read from r into dir/staged, atomically (a
// temporary file renamed once whole), refusing more than MaxSize bytes;
// older staged files of the same library are removed.
func Stage(dir string, n Name, r io.Reader) error {
	staged := filepath.Join(dir, StagedDir)
	if err := os.MkdirAll(staged, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(staged, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	written, err := io.Copy(tmp, io.LimitReader(r, MaxSize+1))
	if err == nil && written > MaxSize {
		err = fmt.Errorf("%s is larger than %d MiB", n.Filename, MaxSize>>20)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := removeOthers(staged, n); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(staged, n.Filename))
}

// removeOthers removes the files of sub that are of n's library but not
// n's file.
func removeOthers(sub string, n Name) error {
	have, err := read(sub)
	if err != nil {
		return err
	}
	for _, h := range have {
		if h.Package == n.Package && h.Filename != n.Filename {
			if err := os.Remove(filepath.Join(sub, h.Filename)); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

// read returns the library files of a directory by library (files that
// are not libraries left out; of two of a library, the newer).
func read(sub string) (map[string]Name, error) {
	entries, err := os.ReadDir(sub)
	if os.IsNotExist(err) {
		return map[string]Name{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]Name{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		n, err := Parse(e.Name())
		if err != nil {
			continue
		}
		if old, ok := out[n.Package]; !ok || CompareVersions(n.Version, old.Version) > 0 {
			out[n.Package] = n
		}
	}
	return out, nil
}

// Staged returns the files staged in the package directory dir, by
// library.
func Staged(dir string) (map[string]Name, error) { return read(filepath.Join(dir, StagedDir)) }

// Promote installs what is staged in the package directory dir (a pod
// calls it when it starts): each staged file moves to dir/installed,
// replacing the installed files of its library. It returns the installed
// files by library.
func Promote(dir string) (map[string]Name, error) {
	staged, err := Staged(dir)
	if err != nil {
		return nil, err
	}
	installed := filepath.Join(dir, InstalledDir)
	if len(staged) > 0 {
		if err := os.MkdirAll(installed, 0o700); err != nil {
			return nil, err
		}
	}
	for _, n := range staged {
		if err := removeOthers(installed, n); err != nil {
			return nil, err
		}
		if err := os.Rename(filepath.Join(dir, StagedDir, n.Filename), filepath.Join(installed, n.Filename)); err != nil {
			return nil, err
		}
	}
	return read(installed)
}

// Installed returns the files of the libraries installed in the package
// directory dir, one fs.FS per library by its name: the bot runtime
// resolves load("@lib/NAME//path.star") as path in Installed(dir)[NAME].
// An sdist's top directory (NAME-VERSION/) is taken off its paths. The
// installed set changes only when the pod starts (Promote), so a pod
// calls it once then.
func Installed(dir string) (map[string]fs.FS, error) {
	names, err := read(filepath.Join(dir, InstalledDir))
	if err != nil {
		return nil, err
	}
	out := make(map[string]fs.FS, len(names))
	for pkg, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, InstalledDir, n.Filename))
		if err != nil {
			return nil, err
		}
		files, err := unpack(n.Kind, data)
		if err != nil {
			return nil, fmt.Errorf("library %s: %v", n.Filename, err)
		}
		if out[pkg], err = filesFS(files); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Rows returns a pod's library rows (SPEC 2.12, 3): a row for each
// library of the object store (latest, its newest file of each) and each
// one the pod has installed or staged, by library name. installed is
// what the pod loaded when it started, staged what waits for its restart.
func Rows(latest []api.LibraryFile, installed, staged map[string]Name) []api.LibraryRow {
	rows := map[string]*api.LibraryRow{}
	row := func(pkg string) *api.LibraryRow {
		if rows[pkg] == nil {
			rows[pkg] = &api.LibraryRow{Package: pkg}
		}
		return rows[pkg]
	}
	for _, f := range latest {
		r := row(f.Package)
		r.Filename, r.ObjectstoreVersion = f.Filename, f.Version
	}
	for pkg, n := range installed {
		r := row(pkg)
		r.InstalledVersion = n.Version
		if r.Filename == "" {
			r.Filename = n.Filename
		}
	}
	for pkg := range staged {
		row(pkg)
	}
	out := make([]api.LibraryRow, 0, len(rows))
	for pkg, r := range rows {
		inst, isInst := installed[pkg]
		st, isStaged := staged[pkg]
		switch {
		case isStaged && (!isInst || CompareVersions(st.Version, inst.Version) > 0):
			r.Status = api.LibraryStaged
			if r.Filename == "" {
				r.Filename = st.Filename
			}
		case !isInst:
			r.Status = api.LibraryNotInstalled
		case CompareVersions(r.ObjectstoreVersion, inst.Version) > 0:
			r.Status = api.LibraryPatchAvailable
		default:
			r.Status = api.LibraryUpToDate
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return strings.Compare(out[i].Package, out[j].Package) < 0 })
	return out
}
