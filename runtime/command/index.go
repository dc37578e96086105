package command

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Index maps command keys to the script that declares them, built by a
// textual scan of each script for command("name", ...) calls, so that
// running one command executes one script and not every script there is.
type Index struct {
	entries map[string]Source
	names   map[string]string // key -> declared name
}

// Source is where a script lives: in the bundled file system or on disk.
type Source struct {
	// Bundled is true for scripts embedded in the binary.
	Bundled bool
	// Path is the script's path: relative to the bundle root, or on disk.
	Path string
	// Fabric says the script uses the fabric (a bundled script that the
	// test given to IndexBundle took): its command will connect.
	Fabric bool
}

// Declared returns the names of the commands that src declares: each
// command( at the start of a line (after blanks) whose first argument is a
// string literal, possibly as name = "...". It is a plain byte scan, as it
// runs over every script on every command.
func Declared(src []byte) []string {
	var names []string
	call := []byte("command(")
	for i := 0; ; {
		j := bytes.Index(src[i:], call)
		if j < 0 {
			return names
		}
		at := i + j
		i = at + len(call)
		if !lineStart(src, at) {
			continue
		}
		rest := skipBlank(src[i:])
		if after, ok := bytes.CutPrefix(rest, []byte("name")); ok {
			if eq := skipBlank(after); len(eq) > 0 && eq[0] == '=' {
				rest = skipBlank(eq[1:])
			}
		}
		if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
			continue
		}
		end := bytes.IndexAny(rest[1:], "\"'\n")
		if end <= 0 || rest[1+end] == '\n' {
			continue
		}
		names = append(names, string(rest[1:1+end]))
	}
}

// lineStart reports whether only blanks precede position at on its line.
func lineStart(src []byte, at int) bool {
	for k := at - 1; k >= 0; k-- {
		switch src[k] {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

func skipBlank(b []byte) []byte {
	return bytes.TrimLeft(b, " \t\r\n")
}

// NewIndex indexes the *.star files at the root of bundle, then those in
// userDir (which may be empty or missing); user scripts override bundled
// commands of the same name.
func NewIndex(bundle fs.FS, userDir string) (*Index, error) {
	var bundled []byte
	if bundle != nil {
		var err error
		if bundled, err = IndexBundle(bundle, nil); err != nil {
			return nil, err
		}
	}
	return NewIndexOf(bundled, userDir)
}

// IndexBundle returns the index of the *.star files at the root of
// bundle, encoded for NewIndexOf: a line "name<TAB>path" per command,
// "name<TAB>path<TAB>fabric" when fabric (if not nil) says the script
// uses the fabric. A bundle is fixed within a build, so its index can be
// kept.
func IndexBundle(bundle fs.FS, fabric func(path string, src []byte) bool) ([]byte, error) {
	files, err := fs.Glob(bundle, "*.star")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, f := range files {
		src, err := fs.ReadFile(bundle, f)
		if err != nil {
			return nil, err
		}
		uses := fabric != nil && fabric(f, src)
		for _, name := range Declared(src) {
			b.WriteString(name)
			b.WriteByte('\t')
			b.WriteString(path.Clean(f))
			if uses {
				b.WriteString("\tfabric")
			}
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// NewIndexOf is NewIndex with the bundle's index already made
// (IndexBundle).
func NewIndexOf(bundled []byte, userDir string) (*Index, error) {
	n := bytes.Count(bundled, []byte{'\n'})
	ix := &Index{entries: make(map[string]Source, n), names: make(map[string]string, n)}
	for line := range bytes.Lines(bundled) {
		name, p, ok := strings.Cut(strings.TrimSuffix(string(line), "\n"), "\t")
		if !ok {
			return nil, fmt.Errorf("command index: bad line %q", line)
		}
		p, mark, _ := strings.Cut(p, "\t")
		key := Canonical(name)
		ix.entries[key] = Source{Bundled: true, Path: p, Fabric: mark == "fabric"}
		ix.names[key] = name
	}
	if userDir != "" {
		files, _ := filepath.Glob(filepath.Join(userDir, "*.star"))
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			ix.add(src, Source{Path: f})
		}
	}
	return ix, nil
}

func (ix *Index) add(src []byte, s Source) {
	for _, name := range Declared(src) {
		ix.entries[Canonical(name)] = s
		ix.names[Canonical(name)] = name
	}
}

// Find returns the script that declares the command with the given key.
func (ix *Index) Find(key string) (Source, bool) {
	s, ok := ix.entries[key]
	return s, ok
}

// Name returns the declared name of the command with the given key.
func (ix *Index) Name(key string) string { return ix.names[key] }

// Keys returns every indexed command key, sorted.
func (ix *Index) Keys() []string {
	keys := make([]string, 0, len(ix.entries))
	for k := range ix.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Resolve finds the command that argv names, trying the longest run of
// leading words first so that "dataset list", "dataset-list" and
// "bot-package generate" all resolve. It returns the key and the number of
// words consumed.
func (ix *Index) Resolve(argv []string) (key string, n int, ok bool) {
	words := 0
	for words < len(argv) && words < 4 && !strings.HasPrefix(argv[words], "-") {
		words++
	}
	for n := words; n >= 1; n-- {
		k := Canonical(strings.Join(argv[:n], " "))
		if _, found := ix.entries[k]; found {
			return k, n, true
		}
	}
	return "", 0, false
}

// Suggest returns the indexed commands closest to what argv tried to name,
// spelled with spaces as users type them.
func (ix *Index) Suggest(argv []string) []string {
	words := 0
	for words < len(argv) && words < 3 && !strings.HasPrefix(argv[words], "-") {
		words++
	}
	keys := ix.Keys()
	seen := map[string]bool{}
	var out []string
	for n := words; n >= 1 && len(out) < 3; n-- {
		for _, k := range Closest(Canonical(strings.Join(argv[:n], " ")), keys, 3) {
			if !seen[k] {
				seen[k] = true
				out = append(out, ix.names[k])
			}
		}
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}
