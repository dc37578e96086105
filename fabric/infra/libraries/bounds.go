package libraries

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The bounds of a pod's package directory, whatever a tenant installs:
// library install refuses a file that would go over one (Stage), and a
// pod that finds its directory over one when it starts installs (Promote)
// or loads (Installed) the libraries that fit, by name, and says which
// it left out. Each library file is bounded too (MaxSize, MaxEntries,
// MaxUnpacked).
const (
	// MaxLibraries is the most libraries a pod's package directory
	// holds, installed and staged together (a library counted once,
	// whatever its versions).
	MaxLibraries = 64
	// MaxDirSize is the most bytes of library files a pod's package
	// directory holds on the host's disk, installed and staged together:
	// 256 MiB.
	MaxDirSize = 256 << 20
	// MaxLoaded is the most bytes of library files, unpacked, a pod reads
	// into memory when it starts, all its installed libraries together
	// (Installed): 64 MiB. A library that unpacks to more is refused when
	// it is staged.
	MaxLoaded = 64 << 20
)

// usage is what the package directory dir holds: its libraries,
// installed or staged, and the bytes of the files of its two
// subdirectories, leaving out the staged files of the library skip (a
// new staged version replaces them). Files being written (.tmp-*) are
// left out.
func usage(dir, skip string) (libs map[string]bool, size int64, err error) {
	libs = map[string]bool{}
	for _, sub := range []string{InstalledDir, StagedDir} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".tmp-") {
				continue
			}
			n, perr := Parse(e.Name())
			if perr == nil && sub == StagedDir && n.Package == skip {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue // gone since the listing
			}
			size += info.Size()
			if perr == nil {
				libs[n.Package] = true
			}
		}
	}
	return libs, size, nil
}

// tooMany is the refusal of a library n that would make the directory
// hold more than MaxLibraries libraries.
func tooMany(n Name, what string) error {
	return fmt.Errorf("%s %s: the pod's package directory would hold more than %d libraries, the most it may", n.Filename, what, MaxLibraries)
}

// tooBig is the refusal of a library n that would take the directory's
// files over MaxDirSize bytes (used: what it holds without n).
func tooBig(n Name, what string, used int64) error {
	return fmt.Errorf("%s %s: the pod's package directory would hold more than %d MiB of library files, the most it may (%d MiB without it)",
		n.Filename, what, MaxDirSize>>20, used>>20)
}
