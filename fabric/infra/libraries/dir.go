package libraries

import (
	"errors"
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
// temporary file renamed once whole), refusing more than MaxSize bytes, a
// file that would take the directory over MaxLibraries or MaxDirSize, and
// one that unpacks to more than MaxLoaded; older staged files of the same
// library are removed.
func Stage(dir string, n Name, r io.Reader) error {
	libs, used, err := usage(dir, n.Package)
	if err != nil {
		return err
	}
	if !libs[n.Package] && len(libs) >= MaxLibraries {
		return tooMany(n, "is not staged")
	}
	room := int64(MaxDirSize) - used
	if room <= 0 {
		return tooBig(n, "is not staged", used)
	}
	staged := filepath.Join(dir, StagedDir)
	if err := os.MkdirAll(staged, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(staged, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	written, err := io.Copy(tmp, io.LimitReader(r, min(MaxSize, room)+1))
	switch {
	case err != nil:
	case written > MaxSize:
		err = fmt.Errorf("%s is larger than %d MiB", n.Filename, MaxSize>>20)
	case written > room:
		err = tooBig(n, "is not staged", used)
	default:
		err = tmp.Sync()
	}
	if err == nil {
		// What the pod would read into memory when it starts.
		if _, uerr := unpackedSize(n.Kind, tmp, written, MaxLoaded); errors.Is(uerr, errOver) {
			err = fmt.Errorf("%s is not staged: it unpacks to more than %d MiB, the most a pod loads of all its libraries", n.Filename, MaxLoaded>>20)
		} else if uerr != nil {
			err = fmt.Errorf("%s %v", n.Filename, uerr)
		}
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
// calls it when it starts): each staged file, by library name, moves to
// dir/installed, replacing the installed files of its library. A staged
// file that would take dir/installed over MaxLibraries or MaxDirSize is
// not installed but removed, and refused says why (one error each). It
// returns the installed files by library.
func Promote(dir string) (installed map[string]Name, refused []error, err error) {
	staged, err := Staged(dir)
	if err != nil {
		return nil, nil, err
	}
	inst := filepath.Join(dir, InstalledDir)
	if len(staged) > 0 {
		if err := os.MkdirAll(inst, 0o700); err != nil {
			return nil, nil, err
		}
	}
	// What the installed directory holds: its libraries, their files'
	// bytes, and its bytes in all.
	have, err := read(inst)
	if err != nil {
		return nil, nil, err
	}
	sizes := map[string]int64{}
	for _, n := range have {
		sizes[n.Package] = fileSize(filepath.Join(inst, n.Filename))
	}
	total := dirSize(inst)
	for _, n := range sortedNames(staged) {
		from := filepath.Join(dir, StagedDir, n.Filename)
		size := fileSize(from)
		_, replaces := have[n.Package]
		switch {
		case !replaces && len(have) >= MaxLibraries:
			refused = append(refused, tooMany(n, "is not installed"))
		case total-sizes[n.Package]+size > MaxDirSize:
			refused = append(refused, tooBig(n, "is not installed", total-sizes[n.Package]))
		default:
			if err := removeOthers(inst, n); err != nil {
				return nil, refused, err
			}
			if err := os.Rename(from, filepath.Join(inst, n.Filename)); err != nil {
				return nil, refused, err
			}
			total += size - sizes[n.Package]
			have[n.Package], sizes[n.Package] = n, size
			continue
		}
		// Refused: it goes, so that it is neither kept on disk nor
		// shown as staged (the object store still has it).
		_ = os.Remove(from)
	}
	installed, err = read(inst)
	return installed, refused, err
}

// fileSize is the size of the file at path, 0 when it cannot be read.
func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// dirSize is the bytes of the regular files of the directory sub.
func dirSize(sub string) int64 {
	entries, _ := os.ReadDir(sub)
	var total int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.Type().IsRegular() {
			total += info.Size()
		}
	}
	return total
}

// sortedNames are the values of names by library name.
func sortedNames(names map[string]Name) []Name {
	out := make([]Name, 0, len(names))
	for _, n := range names {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package < out[j].Package })
	return out
}

// Installed returns the files of the libraries installed in the package
// directory dir, one fs.FS per library by its name: the bot runtime
// resolves load("@lib/NAME//path.star") as path in Installed(dir)[NAME].
// An sdist's top directory (NAME-VERSION/) is taken off its paths. The
// installed set changes only when the pod starts (Promote), so a pod
// calls it once then. It reads the libraries by name, at most
// MaxLibraries of them and MaxLoaded bytes of their files in all: a
// library past a bound, or whose file is not a readable library, is not
// loaded, and refused says why (one error each); the others are.
func Installed(dir string) (libs map[string]fs.FS, refused []error, err error) {
	names, err := read(filepath.Join(dir, InstalledDir))
	if err != nil {
		return nil, nil, err
	}
	libs = make(map[string]fs.FS, len(names))
	var loaded int64
	for _, n := range sortedNames(names) {
		path := filepath.Join(dir, InstalledDir, n.Filename)
		if len(libs) >= MaxLibraries {
			refused = append(refused, fmt.Errorf("library %s is not loaded: a pod loads at most %d libraries", n.Filename, MaxLibraries))
			continue
		}
		if size := fileSize(path); size > MaxSize {
			refused = append(refused, fmt.Errorf("library %s is not loaded: it is larger than %d MiB", n.Filename, MaxSize>>20))
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			refused = append(refused, fmt.Errorf("library %s is not loaded: %v", n.Filename, err))
			continue
		}
		files, err := unpackMax(n.Kind, data, MaxLoaded-loaded)
		if errors.Is(err, errOver) {
			refused = append(refused, fmt.Errorf("library %s is not loaded: the pod's libraries would take more than %d MiB of memory, the most a pod loads (%d MiB loaded)",
				n.Filename, MaxLoaded>>20, loaded>>20))
			continue
		}
		if err != nil {
			refused = append(refused, fmt.Errorf("library %s is not loaded: it %v", n.Filename, err))
			continue
		}
		fsys, err := filesFS(files)
		if err != nil {
			refused = append(refused, fmt.Errorf("library %s is not loaded: %v", n.Filename, err))
			continue
		}
		for _, body := range files {
			loaded += int64(len(body))
		}
		libs[n.Package] = fsys
	}
	return libs, refused, nil
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
