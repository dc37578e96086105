package client

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
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

// Bounds of what ReadBundle reads.
const (
	// MaxBundleFile bounds one file of a bundle.
	MaxBundleFile = 16 << 20
	// MaxBundleSize bounds the files of a bundle together.
	MaxBundleSize = 256 << 20
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
// api-server is sent).
type BundleFile = api.BundleFile

// Bundle is what a bundle archive holds: its documents, by path.
type Bundle struct {
	// Files are the bundle's documents, by path.
	Files []BundleFile
}

// ReadBundle reads a bundle from a .tar.gz stream, without writing
// anything to disk. The archive holds folders pipelines/, blueprints/ (or
// deployments/) and dashboards/, at its top or inside one top-level
// folder; their files, in subfolders too, are the bundle's documents.
// Files beside those folders (a README) and hidden files and folders are
// ignored; a file in another folder, an absolute path, a path with "..",
// a link, a file over MaxBundleFile bytes and more than MaxBundleSize in
// all are refused. Errors name the file in the archive, or the archive
// (name) when it is not one.
func ReadBundle(r io.Reader, name string) (*Bundle, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		if errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s: not a gzip file (a bundle is a .tar.gz archive)", name)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	defer zr.Close()
	files, err := readTar(tar.NewReader(zr), name)
	if err != nil {
		return nil, err
	}
	return layout(files, name)
}

// entry is a regular file of the archive: its path's parts and content.
type entry struct {
	parts []string
	data  []byte
}

func (e entry) name() string { return strings.Join(e.parts, "/") }

// readTar reads the regular files of an archive, refusing unsafe paths,
// links and oversized files.
func readTar(tr *tar.Reader, name string) ([]entry, error) {
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
		case h.Size > MaxBundleFile:
			return nil, fmt.Errorf("%s: %d bytes, more than the %d MiB a bundle file may hold", h.Name, h.Size, MaxBundleFile>>20)
		}
		if total += h.Size; total > MaxBundleSize {
			return nil, fmt.Errorf("%s: the bundle's files hold more than %d MiB", h.Name, MaxBundleSize>>20)
		}
		data, err := io.ReadAll(io.LimitReader(tr, MaxBundleFile+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", h.Name, archiveError(err))
		}
		if len(data) > MaxBundleFile {
			return nil, fmt.Errorf("%s: more than the %d MiB a bundle file may hold", h.Name, MaxBundleFile>>20)
		}
		files = append(files, entry{parts: parts, data: data})
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
			return nil, fmt.Errorf("%s: not in a pipelines/, blueprints/ (or deployments/) or dashboards/ folder", f.name())
		}
		b.Files = append(b.Files, BundleFile{Type: typ, Path: path.Join(f.parts...), Data: f.data})
	}
	if len(b.Files) == 0 {
		return nil, fmt.Errorf("%s: no files in pipelines/, blueprints/ or dashboards/: nothing to deploy", name)
	}
	sort.SliceStable(b.Files, func(i, j int) bool { return b.Files[i].Path < b.Files[j].Path })
	return b, nil
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
