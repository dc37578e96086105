package libraries

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// Archive bounds: a library has at most MaxEntries files and directories
// and MaxUnpacked bytes once unpacked, whatever its packed size.
const (
	MaxEntries  = 10000
	MaxUnpacked = 256 << 20
)

// CheckArchive reads a library file of kind (Sdist or Wheel) whole and
// refuses one that is not a gzip'd tar or a zip, or whose entries are
// links, absolute paths or paths with "..", or over the bounds.
func CheckArchive(kind string, data []byte) error {
	_, err := unpack(kind, data)
	return err
}

// errOver is unpack's error for an archive over the bound it was given.
var errOver = errors.New("over the bound")

// unpack returns the files of a library archive by their paths inside
// it (the sdist's top directory NAME-VERSION/ taken off), checked as
// CheckArchive says.
func unpack(kind string, data []byte) (map[string][]byte, error) {
	files, err := unpackMax(kind, data, MaxUnpacked)
	if errors.Is(err, errOver) {
		return nil, fmt.Errorf("unpacks to more than %d MiB", MaxUnpacked>>20)
	}
	return files, err
}

// unpackMax is unpack with at most max bytes unpacked (errOver past
// them): what is read is never more than max+1 bytes.
func unpackMax(kind string, data []byte, max int64) (map[string][]byte, error) {
	files := map[string][]byte{}
	var total int64
	err := walk(kind, bytes.NewReader(data), int64(len(data)), func(name string, r io.Reader) error {
		if len(files) >= MaxEntries {
			return fmt.Errorf("has more than %d entries", MaxEntries)
		}
		body, err := io.ReadAll(io.LimitReader(r, max-total+1))
		if err != nil {
			return err
		}
		total += int64(len(body))
		if total > max {
			return errOver
		}
		files[name] = body
		return nil
	})
	if err != nil {
		return nil, err
	}
	if kind == Sdist {
		files = stripTop(files)
	}
	return files, nil
}

// unpackedSize is the bytes a library archive of kind unpacks to, read
// from r (size bytes) a block at a time, never holding its files:
// errOver past max.
func unpackedSize(kind string, r io.ReaderAt, size, max int64) (int64, error) {
	var total int64
	entries := 0
	err := walk(kind, r, size, func(name string, body io.Reader) error {
		if entries++; entries > MaxEntries {
			return fmt.Errorf("has more than %d entries", MaxEntries)
		}
		n, err := io.Copy(io.Discard, io.LimitReader(body, max-total+1))
		if err != nil {
			return err
		}
		if total += n; total > max {
			return errOver
		}
		return nil
	})
	return total, err
}

// walk calls file for each regular file of a library archive of kind
// (Sdist or Wheel) read from r (size bytes), refusing links, absolute
// paths and paths with "..".
func walk(kind string, r io.ReaderAt, size int64, file func(name string, body io.Reader) error) error {
	switch kind {
	case Sdist:
		gz, err := gzip.NewReader(io.NewSectionReader(r, 0, size))
		if err != nil {
			return errors.New("is not a gzip'd tar archive")
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("is not a readable tar archive: %v", err)
			}
			if err := checkPath(h.Name); err != nil {
				return err
			}
			switch h.Typeflag {
			case tar.TypeDir:
			case tar.TypeReg:
				if err := file(h.Name, tr); err != nil {
					return err
				}
			default:
				return fmt.Errorf("entry %s is not a file or directory (links are refused)", h.Name)
			}
		}
	case Wheel:
		zr, err := zip.NewReader(r, size)
		if err != nil {
			return errors.New("is not a zip archive")
		}
		for _, f := range zr.File {
			if err := checkPath(f.Name); err != nil {
				return err
			}
			m := f.Mode()
			switch {
			case m.IsDir():
			case m.IsRegular():
				rc, err := f.Open()
				if err != nil {
					return fmt.Errorf("entry %s: %v", f.Name, err)
				}
				err = file(f.Name, rc)
				rc.Close()
				if err != nil {
					return err
				}
			default:
				return fmt.Errorf("entry %s is not a file or directory (links are refused)", f.Name)
			}
		}
	default:
		return fmt.Errorf("unknown kind of library %q", kind)
	}
	return nil
}

// checkPath refuses an entry path that is absolute or climbs out.
func checkPath(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || (len(name) > 1 && name[1] == ':') {
		return fmt.Errorf("entry %q has an absolute path", name)
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return fmt.Errorf("entry %q has '..' in its path", name)
		}
	}
	return nil
}

// stripTop takes off the top directory every path shares (an sdist's
// NAME-VERSION/), so that modules are addressed from the library's root.
func stripTop(files map[string][]byte) map[string][]byte {
	top := ""
	for name := range files {
		first, _, ok := strings.Cut(strings.TrimPrefix(name, "./"), "/")
		if !ok || (top != "" && first != top) {
			return files
		}
		top = first
	}
	if top == "" {
		return files
	}
	out := make(map[string][]byte, len(files))
	for name, body := range files {
		out[strings.TrimPrefix(strings.TrimPrefix(name, "./"), top+"/")] = body
	}
	return out
}

// filesFS makes a read-only fs.FS of the unpacked files (a zip built in
// memory, which is an fs.FS with directories).
func filesFS(files map[string][]byte) (fs.FS, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		name = path.Clean(strings.TrimPrefix(name, "./"))
		if name == "." || !fs.ValidPath(name) {
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
}
