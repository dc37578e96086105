package botpkg

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing/fstest"
	"time"
)

// Pack writes the files of a package (fsys, its root holding bots.yml)
// as a .tar.gz, in name order with fixed times, so that one package makes
// one archive. Directories named dist and hidden files are left out.
func Pack(fsys fs.FS, l Limits) ([]byte, error) {
	l = l.withDefaults()
	files, err := readFiles(fsys, l)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if packed(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range names {
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(files[name]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// packed reports whether a package's file goes into its archive.
func packed(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || part == "dist" {
			return false
		}
	}
	return true
}

// Unpack reads a package's .tar.gz into a file system, bounded by l:
// regular files only, no absolute path and no "..", at most l.Files files
// of l.FileSize bytes. An archive whose files are all under one directory
// holding bots.yml is read from that directory.
func Unpack(r io.Reader, l Limits) (fs.FS, error) {
	l = l.withDefaults()
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("the package archive is not a .tar.gz: %v", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	out := fstest.MapFS{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the package archive cannot be read: %v", err)
		}
		name := strings.TrimPrefix(hdr.Name, "./")
		switch hdr.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader:
			continue
		case tar.TypeReg:
		default:
			return nil, fmt.Errorf("the package archive holds %s, which is not a regular file", hdr.Name)
		}
		if name == "" || strings.HasPrefix(name, "/") || !fs.ValidPath(name) {
			return nil, fmt.Errorf("the package archive holds the path %q, outside the package", hdr.Name)
		}
		if len(out) >= l.Files {
			return nil, fmt.Errorf("the package archive holds more than %d files", l.Files)
		}
		if hdr.Size > l.FileSize {
			return nil, fmt.Errorf("%s is over the file size limit of %d bytes", name, l.FileSize)
		}
		data, err := io.ReadAll(io.LimitReader(tr, l.FileSize+1))
		if err != nil {
			return nil, fmt.Errorf("the package archive cannot be read: %v", err)
		}
		if int64(len(data)) > l.FileSize {
			return nil, fmt.Errorf("%s is over the file size limit of %d bytes", name, l.FileSize)
		}
		out[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	if _, ok := out[ManifestFile]; ok {
		return out, nil
	}
	top := ""
	for name := range out {
		dir, _, _ := strings.Cut(name, "/")
		if top != "" && dir != top || dir == name {
			return out, nil
		}
		top = dir
	}
	if _, ok := out[path.Join(top, ManifestFile)]; top != "" && ok {
		return fs.Sub(out, top)
	}
	return out, nil
}
