package pack

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// Limits bound what Read takes in.
type Limits struct {
	// MaxEntries bounds the entries of the archive (files, folders,
	// hidden ones, everything).
	MaxEntries int
	// MaxFile bounds the bytes of one file.
	MaxFile int64
	// MaxSize bounds the bytes of the archive uncompressed.
	MaxSize int64
}

// DefaultLimits are the limits of a pack: 5000 entries, 16 MiB a file,
// 64 MiB in all (uncompressed).
var DefaultLimits = Limits{MaxEntries: 5000, MaxFile: 16 << 20, MaxSize: 64 << 20}

// tarOverhead is what the tar format adds to an entry's content at most
// (its header, an extended header, the padding), allowed on top of
// MaxSize in the uncompressed stream; tarEnd is the archive's end.
const (
	tarOverhead = 4 << 10
	tarEnd      = 16 << 10
)

// ReadFile opens the file at path and Reads it (named path in errors);
// an error opening it is an *os.PathError.
func ReadFile(path string, l Limits) (*Pack, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, l)
}

// Read reads a .tar.gz pack from r as a stream (named name in errors)
// and checks it (Pack.Check). The manifest.yaml is at the archive's top
// or inside its one top-level folder (which is then the pack's top).
//
// An archive is refused with one error of one line, naming the entry
// where there is one: an absolute path, a path with "..", a link
// (symbolic or hard), a device or anything else but a file or a folder,
// more than l.MaxEntries entries, a file over l.MaxFile, more than
// l.MaxSize uncompressed in all (the bytes read are counted, the
// headers are not trusted: a gzip bomb stops at the limit), a text that
// is not gzip or not tar ("NAME is not a .tar.gz pack: ..."), no
// manifest ("NAME has no manifest.yaml at its top"). Hidden entries (a
// part starting with ".", or "__MACOSX") are ignored; files the
// manifest does not name are kept, unused. A zero field of l takes
// DefaultLimits'.
func Read(r io.Reader, name string, l Limits) (*Pack, error) {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultLimits.MaxEntries
	}
	if l.MaxFile <= 0 {
		l.MaxFile = DefaultLimits.MaxFile
	}
	if l.MaxSize <= 0 {
		l.MaxSize = DefaultLimits.MaxSize
	}
	notPack := func(err error) error {
		return fmt.Errorf("%s is not a .tar.gz pack: %s", name, oneLine(err.Error()))
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("the file is empty")
		}
		return nil, notPack(err)
	}
	defer zr.Close()
	// The uncompressed stream is counted: content, headers and what tar
	// skips alike.
	stream := &counter{r: zr, max: l.MaxSize + int64(l.MaxEntries)*tarOverhead + tarEnd}
	tr := tar.NewReader(stream)
	files := map[string][]byte{}
	var dirs []string
	var total int64
	for entries := 0; ; entries++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if stream.over {
				return nil, fmt.Errorf("%s is over its limit of %s uncompressed", name, sizeText(l.MaxSize))
			}
			return nil, notPack(err)
		}
		if entries >= l.MaxEntries {
			return nil, fmt.Errorf("%s has more than %d entries", name, l.MaxEntries)
		}
		p, skip, err := entryPath(hdr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", name, err)
		}
		if skip {
			continue
		}
		if hdr.Typeflag == tar.TypeDir {
			dirs = append(dirs, p)
			continue
		}
		if hdr.Size > l.MaxFile {
			return nil, fmt.Errorf("%s: entry %s is over the limit of a file, %s", name, hdr.Name, sizeText(l.MaxFile))
		}
		if total+hdr.Size > l.MaxSize {
			return nil, fmt.Errorf("%s is over its limit of %s uncompressed (at entry %s)", name, sizeText(l.MaxSize), hdr.Name)
		}
		data, err := io.ReadAll(io.LimitReader(tr, l.MaxFile+1))
		if err != nil {
			if stream.over {
				return nil, fmt.Errorf("%s is over its limit of %s uncompressed (at entry %s)", name, sizeText(l.MaxSize), hdr.Name)
			}
			return nil, notPack(err)
		}
		if int64(len(data)) > l.MaxFile {
			return nil, fmt.Errorf("%s: entry %s is over the limit of a file, %s", name, hdr.Name, sizeText(l.MaxFile))
		}
		if total += int64(len(data)); total > l.MaxSize {
			return nil, fmt.Errorf("%s is over its limit of %s uncompressed (at entry %s)", name, sizeText(l.MaxSize), hdr.Name)
		}
		if _, dup := files[p]; dup {
			return nil, fmt.Errorf("%s: entry %s is in the archive twice", name, hdr.Name)
		}
		files[p] = data
	}
	// The rest of the stream (the gzip trailer, which checks the
	// content) is read, bounded.
	if _, err := io.Copy(io.Discard, stream); err != nil {
		if stream.over {
			return nil, fmt.Errorf("%s is over its limit of %s uncompressed", name, sizeText(l.MaxSize))
		}
		return nil, notPack(err)
	}
	files, ok := atTop(files, dirs)
	if !ok {
		return nil, fmt.Errorf("%s has no %s at its top", name, ManifestFile)
	}
	m, err := ParseManifest(files[ManifestFile])
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, err)
	}
	delete(files, ManifestFile)
	p := &Pack{Manifest: m, files: files}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("%s: %s", name, err)
	}
	return p, nil
}

// entryPath returns the path of an archive's entry in the pack, whether
// it is skipped (hidden, or a tar header of the whole archive), or why
// it is refused.
func entryPath(hdr *tar.Header) (p string, skip bool, err error) {
	name := hdr.Name
	switch hdr.Typeflag {
	case tar.TypeXGlobalHeader:
		return "", true, nil
	case tar.TypeSymlink:
		return "", false, fmt.Errorf("entry %s is a symbolic link (to %s): links are refused", name, hdr.Linkname)
	case tar.TypeLink:
		return "", false, fmt.Errorf("entry %s is a hard link (to %s): links are refused", name, hdr.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return "", false, fmt.Errorf("entry %s is a device: devices are refused", name)
	case tar.TypeReg, tar.TypeRegA, tar.TypeDir:
	default:
		return "", false, fmt.Errorf("entry %s is not a file or a folder (tar type %q)", name, hdr.Typeflag)
	}
	switch {
	case name == "":
		return "", false, errors.New("an entry has no name")
	case strings.HasPrefix(name, "/") || strings.HasPrefix(name, "\\") || driveLetter(name):
		return "", false, fmt.Errorf("entry %s has an absolute path", name)
	case strings.ContainsRune(name, 0):
		return "", false, fmt.Errorf("entry %q has a NUL in its path", name)
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", false, fmt.Errorf("entry %s has \"..\" in its path", name)
		}
	}
	p = path.Clean(name)
	if p == "." {
		return "", true, nil
	}
	for _, part := range strings.Split(p, "/") {
		if hidden(part) {
			return "", true, nil
		}
	}
	return p, false, nil
}

// driveLetter reports whether a path starts with a Windows drive: C:/
// or C:\.
func driveLetter(name string) bool {
	return len(name) > 2 && name[1] == ':' && (name[2] == '/' || name[2] == '\\') &&
		('a' <= name[0] && name[0] <= 'z' || 'A' <= name[0] && name[0] <= 'Z')
}

// atTop finds the manifest at the top of the files, or in their one
// top-level folder (then the folder's part is taken off every path).
func atTop(files map[string][]byte, dirs []string) (map[string][]byte, bool) {
	if _, ok := files[ManifestFile]; ok {
		return files, true
	}
	tops := map[string]bool{}
	for p := range files {
		top, _, _ := strings.Cut(p, "/")
		tops[top] = true
	}
	for _, d := range dirs {
		top, _, _ := strings.Cut(d, "/")
		tops[top] = true
	}
	if len(tops) != 1 {
		return nil, false
	}
	var top string
	for t := range tops {
		top = t
	}
	if _, ok := files[top+"/"+ManifestFile]; !ok {
		return nil, false
	}
	out := make(map[string][]byte, len(files))
	for p, data := range files {
		out[strings.TrimPrefix(p, top+"/")] = data
	}
	return out, true
}

// counter reads at most max bytes of r; past it, it fails (over set).
type counter struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
}

// errOver is a stream over its limit.
var errOver = errors.New("over the size limit")

// Read reads from r, up to the limit.
func (c *counter) Read(p []byte) (int, error) {
	if c.n >= c.max {
		// One more byte tells a stream that ends at the limit from one
		// that goes past it.
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			c.over = true
			return 0, errOver
		}
		return 0, err
	}
	if rest := c.max - c.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// sizeText writes a size for people: 16 MiB, 512 KiB, 100 B.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
