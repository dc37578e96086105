// Package safefile writes the files a user names the way the user means:
// a regular file is replaced atomically (a temporary file beside it,
// renamed over it once complete, keeping its mode), a symbolic link is
// written through to its target, and a FIFO or a device is written
// directly (no rename could replace it). A missing parent directory is an
// error, not created silently; a directory or a socket is refused. On any
// failure nothing is left behind: no partial file, no temporary file.
package safefile

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds how many symbolic links a path may go through.
const maxLinks = 40

// Write writes path with what fn writes. fn's error fails the write.
func Write(path string, fn func(io.Writer) error) error { return write(path, 0, fn) }

// WriteMode is Write that leaves a regular file with mode perm, new or
// not: a file of credentials written with 0o600 is never readable by
// others, not even for a moment.
func WriteMode(path string, perm fs.FileMode, fn func(io.Writer) error) error {
	return write(path, perm, fn)
}

// write is Write with the mode of the file (0: an existing file's own,
// 0o644 for a new one).
func write(path string, perm fs.FileMode, fn func(io.Writer) error) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(target)
		if dst, derr := os.Stat(dir); derr != nil || !dst.IsDir() {
			return fail(path, fmt.Errorf("its directory %s does not exist", dir))
		}
		// A new file is flushed to disk only when it is private (keys,
		// credentials): a data file that a crash leaves empty had no
		// content to lose, and flushing it costs as long as the download.
		return replace(path, target, cmp.Or(perm, 0o644), perm != 0, fn)
	case err != nil:
		return fail(path, err)
	case st.IsDir():
		return fail(path, errors.New("is a directory"))
	case st.Mode().IsRegular():
		// Replacing: the new content is on disk before the rename, so a
		// crash leaves the old file or the new one, never an empty one.
		return replace(path, target, cmp.Or(perm, st.Mode().Perm()), true, fn)
	case st.Mode()&fs.ModeSocket != 0:
		return fail(path, errors.New("is a socket, which cannot be written as a file"))
	}
	return direct(path, target, fn)
}

// WriteFrom writes path with what r reads.
func WriteFrom(path string, r io.Reader) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	})
}

// resolve follows the symbolic links of path's last element (a dangling
// link resolves to the file it names, which is then created).
func resolve(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fail(path, errors.New("too many levels of symbolic links"))
}

// replace writes a temporary file beside target and renames it over it,
// flushed to disk first when durable.
func replace(path, target string, mode fs.FileMode, durable bool, fn func(io.Writer) error) (err error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fail(path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err = fn(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fail(path, err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fail(path, err)
	}
	if durable {
		if err = tmp.Sync(); err != nil {
			return fail(path, err)
		}
	}
	if err = tmp.Close(); err != nil {
		return fail(path, err)
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return fail(path, err)
	}
	return nil
}

// direct writes a FIFO or a device in place.
func direct(path, target string, fn func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fail(path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := fn(bw); err != nil {
		f.Close()
		return err
	}
	err = bw.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(path, err)
	}
	return nil
}

// fail is the error of writing path: a *fs.PathError (op "write") whose
// cause is err without a path of its own, so that the path is named once.
func fail(path string, err error) error {
	return &fs.PathError{Op: "write", Path: path, Err: unwrap(err)}
}

// unwrap returns the cause of a path or link error.
func unwrap(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
