package client

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
)

// Types of the artifacts a bundle holds, in the order they deploy (the
// api-server's, api.BundlePipeline and so on).
const (
	BundlePipeline  = api.BundlePipeline
	BundleBlueprint = api.BundleBlueprint
	BundleDashboard = api.BundleDashboard
)

// BundleTypes are the types of a bundle's artifacts in deployment order.
var BundleTypes = api.BundleTypes

// Bounds of what OpenBundle reads (the api-server holds the same bounds
// on what it reads of a staged bundle).
const (
	// MaxBundleFile bounds one file of a bundle.
	MaxBundleFile = api.MaxBundleFile
	// MaxBundleSize bounds the files of a bundle together.
	MaxBundleSize = api.MaxBundleSize
	// MaxBundleEntries bounds the entries of a bundle's archive.
	MaxBundleEntries = 10000
)

// bundleFolders maps a bundle's top folders to the type of their files.
var bundleFolders = map[string]string{
	"pipelines":   BundlePipeline,
	"blueprints":  BundleBlueprint,
	"deployments": BundleBlueprint,
	"dashboards":  BundleDashboard,
}

// BundleFile is a document of a bundle (api.BundleFile: what the
// api-server is sent once the document is staged).
type BundleFile = api.BundleFile

// Bundle is a bundle archive on disk, read and checked: its documents,
// and where each is in the archive, to stage it when it is deployed.
type Bundle struct {
	// Files are the bundle's documents, by path, with their sizes (their
	// Blob is set when a request stages them).
	Files []BundleFile

	path, name string
	// entries are the archive's entries of Files, in the same order.
	entries []entry
}

// OpenBundle reads and checks the bundle archive (a .tar.gz) at path,
// named name in errors, without keeping its contents: a deployment reads
// it again to stage its documents. The archive holds folders pipelines/,
// blueprints/ (or deployments/) and dashboards/, at its top or inside
// one top-level folder; their files, in subfolders too, are the bundle's
// documents. Files beside those folders (a README) and hidden files and
// folders are ignored; a file in another folder, an absolute path, a
// path with "..", a link, a file over MaxBundleFile bytes, more than
// MaxBundleSize in all and more than api.MaxBundleFiles documents are
// refused. Errors name the file in the archive, or the archive when it
// is not one; an error opening the file is an *os.PathError.
func OpenBundle(path, name string) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	files, err := walkBundle(bufio.NewReader(f), name, nil)
	if err != nil {
		return nil, err
	}
	b, err := layout(files, name)
	if err != nil {
		return nil, err
	}
	if err := api.BundleFilesError(len(b.Files)); err != nil {
		return nil, err
	}
	b.path, b.name = path, name
	return b, nil
}

// entry is a regular file of the archive: its place among the archive's
// entries, its name there, its path's parts and its size.
type entry struct {
	n     int
	name  string
	parts []string
	size  int64
}

func (e entry) joined() string { return strings.Join(e.parts, "/") }

// walkBundle reads the regular files of a .tar.gz archive, refusing
// unsafe paths, links and oversized files, and returns them. each, when
// not nil, is called with each of them and a reader of its content
// (which it need not read through).
func walkBundle(r io.Reader, name string, each func(e entry, r io.Reader) error) ([]entry, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		if errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s: not a gzip file (a bundle is a .tar.gz archive)", name)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	var files []entry
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, archiveError(err))
		}
		if n == MaxBundleEntries {
			return nil, fmt.Errorf("%s: more than %d entries in the archive", name, MaxBundleEntries)
		}
		parts, err := entryParts(h.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", h.Name, err)
		}
		switch {
		case h.Typeflag == tar.TypeDir, h.Typeflag == tar.TypeXGlobalHeader:
			continue
		case !h.FileInfo().Mode().IsRegular():
			return nil, fmt.Errorf("%s: not a regular file (a bundle holds files only, no links)", h.Name)
		case hidden(parts):
			continue // .DS_Store, ._x, .git/...
		}
		total += h.Size
		if err := api.BundleSizeError(h.Name, h.Size, total); err != nil {
			return nil, err
		}
		e := entry{n: n, name: h.Name, parts: parts, size: h.Size}
		if each != nil {
			if err := each(e, tr); err != nil {
				return nil, err
			}
		}
		// Read through (what each left), so that a damaged archive is
		// found here, naming the file.
		if _, err := io.Copy(io.Discard, tr); err != nil {
			return nil, fmt.Errorf("%s: %v", h.Name, archiveError(err))
		}
		files = append(files, e)
	}
}

// archiveError says what a read error of the archive means.
func archiveError(err error) error {
	switch {
	case errors.Is(err, tar.ErrHeader):
		return errors.New("not a tar archive inside the gzip, or a damaged one")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the archive is cut short")
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("the archive is damaged: %v", err)
	}
	return err
}

// entryParts splits an entry's name into its path's parts, without "."
// and empty ones; an absolute path or one with ".." is refused.
func entryParts(name string) ([]string, error) {
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || len(name) > 1 && name[1] == ':' {
		return nil, errors.New("an absolute path (a bundle's paths are relative)")
	}
	var parts []string
	for _, p := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		switch p {
		case ".":
		case "..":
			return nil, errors.New("a path with '..' (a bundle's paths stay inside it)")
		default:
			parts = append(parts, p)
		}
	}
	return parts, nil
}

// hidden reports whether a path is empty or has a part starting with a
// dot: files the bundle ignores.
func hidden(parts []string) bool {
	if len(parts) == 0 {
		return true
	}
	for _, p := range parts {
		if strings.HasPrefix(p, ".") {
			return true
		}
	}
	return false
}

// layout sorts an archive's files into the bundle's folders: at the top,
// or inside the one folder every file is in.
func layout(files []entry, name string) (*Bundle, error) {
	if root := commonRoot(files); root != "" {
		for i := range files {
			files[i].parts = files[i].parts[1:]
		}
	}
	b := &Bundle{}
	for _, f := range files {
		if len(f.parts) == 1 {
			continue // beside the folders: a README
		}
		typ, ok := bundleFolders[f.parts[0]]
		if !ok {
			return nil, fmt.Errorf("%s: not in a pipelines/, blueprints/ (or deployments/) or dashboards/ folder", f.joined())
		}
		b.Files = append(b.Files, BundleFile{Type: typ, Path: path.Join(f.parts...), Size: f.size})
		b.entries = append(b.entries, f)
	}
	if len(b.Files) == 0 {
		return nil, fmt.Errorf("%s: no files in pipelines/, blueprints/ or dashboards/: nothing to deploy", name)
	}
	sort.Stable(byPath{b})
	return b, nil
}

// byPath sorts a bundle's files (and their entries) by path.
type byPath struct{ b *Bundle }

func (s byPath) Len() int           { return len(s.b.Files) }
func (s byPath) Less(i, j int) bool { return s.b.Files[i].Path < s.b.Files[j].Path }
func (s byPath) Swap(i, j int) {
	s.b.Files[i], s.b.Files[j] = s.b.Files[j], s.b.Files[i]
	s.b.entries[i], s.b.entries[j] = s.b.entries[j], s.b.entries[i]
}

// commonRoot returns the one top folder every file is in, when it is not
// one of the bundle's folders ("" otherwise).
func commonRoot(files []entry) string {
	root := ""
	for _, f := range files {
		if len(f.parts) < 2 || root != "" && f.parts[0] != root {
			return ""
		}
		root = f.parts[0]
	}
	if _, ok := bundleFolders[root]; ok {
		return ""
	}
	return root
}
