package stdlib

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

func fileModule() starlark.Value {
	return doc.Module("file", `Files and paths. Relative paths are relative to the shell's working
directory.`, starlark.StringDict{
		"read": doc.Builtin("file.read", `read(path)

Returns the content of the file at path as a str.`, fileRead),
		"read_bytes": doc.Builtin("file.read_bytes", `read_bytes(path)

Returns the content of the file at path as bytes.`, fileRead),
		"write": doc.Builtin("file.write", `write(path, data)

Writes data (str or bytes) to the file at path, replacing it, and creates
its parent directories. The write is atomic: the data goes to a temporary
file next to path that is then renamed, so a failure never leaves a
half-written file. An existing file keeps its permissions.`, fileWrite),
		"append": doc.Builtin("file.append", `append(path, data)

Appends data (str or bytes) to the file at path, creating it (and its
parent directories) when missing.`, fileAppend),
		"exists": doc.Builtin("file.exists", `exists(path)

Reports whether something (a file, a directory...) exists at path.`, fileExists),
		"is_dir": doc.Builtin("file.is_dir", `is_dir(path)

Reports whether path is a directory.`, fileExists),
		"glob": doc.Builtin("file.glob", `glob(pattern)

Returns the sorted paths matching pattern: * ? and [...] match within a
path element, and a ** element matches any number of directories, so
"src/**/*.go" finds Go files at any depth below src. Wildcards do not
match names starting with "." unless the pattern element does, and **
does not follow symbolic links.`, fileGlob),
		"list_dir": doc.Builtin("file.list_dir", `list_dir(path=".")

Returns the sorted names of the entries of the directory at path.`, fileListDir),
		"mkdir": doc.Builtin("file.mkdir", `mkdir(path)

Creates the directory path and any missing parents; an existing directory
is not an error.`, fileMkdir),
		"remove": doc.Builtin("file.remove", `remove(path)

Removes the file or empty directory at path.`, fileRemove),
		"basename": doc.Builtin("file.basename", `basename(p)

Returns the last element of the path p ("c.txt" for "a/b/c.txt").`, filePath),
		"dirname": doc.Builtin("file.dirname", `dirname(p)

Returns p without its last element ("a/b" for "a/b/c.txt", "." for "c.txt").`, filePath),
		"abspath": doc.Builtin("file.abspath", `abspath(p)

Returns the absolute, cleaned form of p.`, filePath),
		"join": doc.Builtin("file.join", `join(*parts)

Joins path elements with the separator and cleans the result; an empty
list gives "".`, fileJoin),
	})
}

// pathError rewrites the paths in err, an error about path (resolved as
// full), as the user gave them, and prefixes it with the call's name:
// "file.read: open data.csv: no such file or directory".
func pathError(fn string, io *host.IO, path, full string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%s: %s %s: %v", fn, pe.Op, userPath(io, path, full, pe.Path), pe.Err)
	case errors.As(err, &le):
		return fmt.Errorf("%s: %s %s: %v", fn, le.Op, userPath(io, path, full, le.New), le.Err)
	}
	return fmt.Errorf("%s: %s: %v", fn, path, err)
}

// userPath returns p as the user would know it: path itself when p is
// its resolved form, otherwise p without the working directory prefix.
func userPath(io *host.IO, path, full, p string) string {
	if p == full {
		return path
	}
	if io.Dir != "" {
		if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(io.Dir, string(filepath.Separator))+string(filepath.Separator)); ok {
			return rest
		}
	}
	return p
}

func pathArg(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (string, error) {
	var p string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &p); err != nil {
		return "", err
	}
	return p, nil
}

func fileRead(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, err := pathArg(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	io := host.From(thread)
	full := io.Path(p)
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, pathError(b.Name(), io, p, full, err)
	}
	if b.Name() == "file.read_bytes" {
		return starlark.Bytes(data), nil
	}
	return starlark.String(data), nil
}

func dataArgs(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (string, []byte, error) {
	var (
		p    string
		data starlark.Value
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &p, "data", &data); err != nil {
		return "", nil, err
	}
	switch d := data.(type) {
	case starlark.String:
		return p, []byte(d), nil
	case starlark.Bytes:
		return p, []byte(d), nil
	}
	return "", nil, fmt.Errorf("%s: for parameter data: got %s, want str or bytes", b.Name(), data.Type())
}

func fileWrite(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, data, err := dataArgs(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	io := host.From(thread)
	full := io.Path(p)
	if err := WriteFileAtomic(full, data); err != nil {
		return nil, pathError(b.Name(), io, p, full, err)
	}
	return starlark.None, nil
}

// WriteFileAtomic writes data to path as the user means it (package
// safefile): a regular file is replaced atomically, keeping its mode; a
// symbolic link is written through; a FIFO or device is written in place;
// a missing parent directory is an error. A failure leaves no partial
// file and keeps any previous one.
func WriteFileAtomic(path string, data []byte) error {
	return safefile.WriteFrom(path, bytes.NewReader(data))
}

func fileAppend(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, data, err := dataArgs(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	io := host.From(thread)
	full := io.Path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return nil, pathError(b.Name(), io, p, full, err)
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, pathError(b.Name(), io, p, full, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, pathError(b.Name(), io, p, full, err)
	}
	return starlark.None, nil
}

func fileExists(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, err := pathArg(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(host.From(thread).Path(p))
	if err != nil {
		return starlark.False, nil
	}
	if b.Name() == "file.is_dir" {
		return starlark.Bool(st.IsDir()), nil
	}
	return starlark.True, nil
}

func fileListDir(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p := "."
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path?", &p); err != nil {
		return nil, err
	}
	io := host.From(thread)
	full := io.Path(p)
	entries, err := os.ReadDir(full)
	if err != nil {
		return nil, pathError(b.Name(), io, p, full, err)
	}
	names := make([]starlark.Value, len(entries))
	for i, e := range entries {
		names[i] = starlark.String(e.Name())
	}
	return starlark.NewList(names), nil
}

func fileMkdir(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, err := pathArg(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	io := host.From(thread)
	full := io.Path(p)
	if err := os.MkdirAll(full, 0o755); err != nil {
		return nil, pathError(b.Name(), io, p, full, err)
	}
	return starlark.None, nil
}

func fileRemove(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p, err := pathArg(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	io := host.From(thread)
	full := io.Path(p)
	if err := os.Remove(full); err != nil {
		return nil, pathError(b.Name(), io, p, full, err)
	}
	return starlark.None, nil
}

func filePath(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var p string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "p", &p); err != nil {
		return nil, err
	}
	switch b.Name() {
	case "file.basename":
		return starlark.String(filepath.Base(p)), nil
	case "file.dirname":
		return starlark.String(filepath.Dir(p)), nil
	}
	abs, err := filepath.Abs(host.From(thread).Path(p))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", b.Name(), p, err)
	}
	return starlark.String(abs), nil
}

func fileJoin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: unexpected keyword argument %s", b.Name(), kwargs[0][0])
	}
	parts := make([]string, len(args))
	for i, a := range args {
		s, ok := starlark.AsString(a)
		if !ok {
			return nil, fmt.Errorf("%s: argument %d is a %s, want str", b.Name(), i+1, a.Type())
		}
		parts[i] = s
	}
	return starlark.String(filepath.Join(parts...)), nil
}

func fileGlob(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern); err != nil {
		return nil, err
	}
	matches, err := Glob(host.From(thread).Dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: %q: %v", b.Name(), pattern, err)
	}
	out := make([]starlark.Value, len(matches))
	for i, m := range matches {
		out[i] = starlark.String(m)
	}
	return starlark.NewList(out), nil
}

// Glob returns the sorted paths matching pattern, resolving a relative
// pattern against dir (the process's directory when empty) and returning
// paths in the pattern's form (relative when it is). Besides
// filepath.Match's wildcards, an element "**" matches any number of
// directories. Wildcards do not match names starting with "." unless the
// pattern element starts with "."; "**" does not follow symbolic links.
func Glob(dir, pattern string) ([]string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	root := ""
	rest := filepath.ToSlash(filepath.Clean(pattern))
	if filepath.IsAbs(pattern) {
		root = string(filepath.Separator)
		rest = strings.TrimLeft(rest, "/")
	}
	segs := strings.Split(rest, "/")
	seen := map[string]bool{}
	var out []string
	var walk func(rel string, segs []string)
	full := func(rel string) string {
		p := filepath.Join(root, rel)
		if root == "" && dir != "" {
			p = filepath.Join(dir, rel)
		}
		if p == "" {
			return "."
		}
		return p
	}
	add := func(rel string) {
		if rel == "" {
			return
		}
		p := rel
		if root != "" {
			p = filepath.Join(root, rel)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	walk = func(rel string, segs []string) {
		if len(segs) == 0 {
			add(rel)
			return
		}
		seg := segs[0]
		if seg == "**" {
			last := len(segs) == 1
			if last {
				add(rel) // a trailing ** matches its directory and all below
			} else {
				walk(rel, segs[1:]) // zero directories
			}
			entries, _ := os.ReadDir(full(rel))
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					continue
				}
				switch next := filepath.Join(rel, e.Name()); {
				case e.IsDir():
					walk(next, segs) // one more directory
				case last:
					add(next)
				}
			}
			return
		}
		if !hasMeta(seg) {
			next := filepath.Join(rel, seg)
			if _, err := os.Lstat(full(next)); err == nil {
				walk(next, segs[1:])
			}
			return
		}
		entries, _ := os.ReadDir(full(rel))
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
				continue
			}
			if ok, _ := filepath.Match(seg, name); ok {
				walk(filepath.Join(rel, name), segs[1:])
			}
		}
	}
	walk("", segs)
	sort.Strings(out)
	return out, nil
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }
