// Package libraries keeps a tenant's libraries (SPEC 2.12, 3, 4.11):
// archives of .star modules and data files, a .tar.gz (an sdist,
// NAME-VERSION.tar.gz) or a .whl (a wheel, a zip named
// NAME-VERSION(-BUILD)-PY-ABI-PLATFORM.whl), whose names begin with one of
// the reserved prefixes fabric_ or site_.
//
// The files live in the tenant's object store under api.LibrariesFolder
// (package libstore keeps them there). Each pod has a package directory: install
// stages a file in DIR/staged (Stage), and the pod, when it starts, moves
// what is staged to DIR/installed (Promote), replacing older versions of
// the same library. Installed gives the installed libraries' files, for
// load("@lib/NAME//path.star"). The package uses no NATS: pods link it.
package libraries

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// MaxSize is the largest library file accepted (upload and install):
// 64 MiB.
const MaxSize = 64 << 20

// Prefixes are the reserved prefixes a library's name begins with.
var Prefixes = []string{"fabric_", "site_"}

// Kinds of library file.
const (
	Sdist = "sdist" // NAME-VERSION.tar.gz
	Wheel = "wheel" // NAME-VERSION(-BUILD)-PY-ABI-PLATFORM.whl
)

// Name is what a library file's name says.
type Name struct {
	// Package is the library's normalised name: lower case, each run of
	// "-", "_" and "." one "_".
	Package string
	// Version is dotted numbers (1.2.0).
	Version string
	// Filename is the file's name, Kind Sdist or Wheel.
	Filename string
	Kind     string
}

var (
	versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`) })
	nameRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`) })
	sepRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[-_.]+`) })
)

// Normalize returns a library name as it is compared: lower case, each
// run of "-", "_" and "." one "_" (PEP 503, with "_").
func Normalize(name string) string {
	return sepRE().ReplaceAllString(strings.ToLower(name), "_")
}

// Parse reads a library file's name (a base name): its library and
// version, by the sdist and wheel naming rules. It refuses a name of
// another kind, without a version, or without a reserved prefix.
func Parse(filename string) (Name, error) {
	if filename == "" || strings.ContainsAny(filename, `/\`) || len(filename) > 255 {
		return Name{}, fmt.Errorf("library file name %q is not a file name", filename)
	}
	var name, version string
	var kind string
	switch {
	case strings.HasSuffix(filename, ".tar.gz"):
		kind = Sdist
		base := strings.TrimSuffix(filename, ".tar.gz")
		i := strings.LastIndex(base, "-")
		if i < 0 {
			return Name{}, fmt.Errorf("library file %s has no version: name it NAME-VERSION.tar.gz", filename)
		}
		name, version = base[:i], base[i+1:]
	case strings.HasSuffix(filename, ".whl"):
		kind = Wheel
		parts := strings.Split(strings.TrimSuffix(filename, ".whl"), "-")
		if len(parts) < 2 {
			return Name{}, fmt.Errorf("library file %s has no version: name it NAME-VERSION-PY-ABI-PLATFORM.whl", filename)
		}
		if len(parts) != 5 && len(parts) != 6 {
			return Name{}, fmt.Errorf("library file %s is not a wheel's name: NAME-VERSION(-BUILD)-PY-ABI-PLATFORM.whl", filename)
		}
		name, version = parts[0], parts[1]
	default:
		return Name{}, fmt.Errorf("library file %s is neither a .tar.gz nor a .whl", filename)
	}
	if version == "" {
		return Name{}, fmt.Errorf("library file %s has no version", filename)
	}
	if !versionRE().MatchString(version) {
		return Name{}, fmt.Errorf("library file %s: version %q is not dotted numbers (such as 1.2.0)", filename, version)
	}
	if !nameRE().MatchString(name) {
		return Name{}, fmt.Errorf("library file %s: %q is not a library name (letters, digits, '-', '_' and '.')", filename, name)
	}
	pkg := Normalize(name)
	if !hasPrefix(pkg) {
		return Name{}, fmt.Errorf("library %s: the name must begin with %s", name, strings.Join(Prefixes, " or "))
	}
	return Name{Package: pkg, Version: version, Filename: filename, Kind: kind}, nil
}

func hasPrefix(pkg string) bool {
	for _, p := range Prefixes {
		if strings.HasPrefix(pkg, p) && len(pkg) > len(p) {
			return true
		}
	}
	return false
}

// CompareVersions compares two dotted versions number by number (a
// missing number is 0): -1, 0 or 1. An empty version is older than any.
func CompareVersions(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return -1
	case b == "":
		return 1
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		x, y := part(as, i), part(bs, i)
		if c := compareDigits(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func part(p []string, i int) string {
	if i < len(p) {
		return p[i]
	}
	return "0"
}

// compareDigits compares two runs of digits as numbers of any length.
func compareDigits(x, y string) int {
	x, y = strings.TrimLeft(x, "0"), strings.TrimLeft(y, "0")
	switch {
	case len(x) < len(y):
		return -1
	case len(x) > len(y):
		return 1
	}
	return strings.Compare(x, y)
}
