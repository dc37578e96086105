package pack

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"sort"
	"time"
)

// archiveTime is the modification time of every entry Write and
// WriteReport write: the same content gives the same bytes.
var archiveTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Write writes a pack as a deterministic .tar.gz: manifest.yaml
// (MarshalManifest) first, then the files sorted by path, each a plain
// file of mode 0644 modified at 2000-01-01 UTC, without owner names or
// folder entries. It checks the pack first, as Read would (Pack.Check:
// the manifest, every artifact's file in files, the placeholders), and
// the paths of files (clean, relative, not hidden, not manifest.yaml),
// so that what Write writes, Read reads.
func Write(w io.Writer, m Manifest, files map[string][]byte) error {
	for p := range files {
		if err := checkPath(p); err != nil {
			return fmt.Errorf("cannot write the pack: %s", err)
		}
	}
	if err := New(m, files).Check(); err != nil {
		return err
	}
	manifest, err := MarshalManifest(m)
	if err != nil {
		return err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	entries := []entry{{ManifestFile, manifest}}
	for _, p := range paths {
		entries = append(entries, entry{p, files[p]})
	}
	return writeArchive(w, entries)
}

// entry is a file of an archive.
type entry struct {
	path string
	data []byte
}

// writeArchive writes entries as a deterministic .tar.gz: tar picks the
// first format that holds a header (USTAR, else PAX for a long or
// non-ASCII path), a function of the header alone.
func writeArchive(w io.Writer, entries []entry) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     e.path,
			Mode:     0o644,
			Size:     int64(len(e.data)),
			ModTime:  archiveTime,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %w", e.path, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}
