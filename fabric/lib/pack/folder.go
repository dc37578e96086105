package pack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// BotPackageManifest is the file at the top of a bot package's folder:
// its bots.yml (fabric/lib/botpkg's ManifestFile).
const BotPackageManifest = "bots.yml"

// folderTypes are the types whose artifact is a folder of the pack, each
// with the file its folder must hold at its top.
var folderTypes = map[string]string{TypeBotPackage: BotPackageManifest}

// IsFolder reports whether an artifact of typ is a folder of the pack
// (its File names a folder, and the artifact is every file under it)
// rather than one file: a bot package, whose bots.yml, Starlark modules
// and fixtures are taken as they are, never rendered.
func IsFolder(typ string) bool {
	_, ok := folderTypes[typ]
	return ok
}

// Folder returns the files of the pack under the folder dir, by path
// relative to it (none: an empty map).
func (p *Pack) Folder(dir string) map[string][]byte {
	out := map[string][]byte{}
	prefix := dir + "/"
	for name, data := range p.files {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			out[rest] = data
		}
	}
	return out
}

// checkFolder checks that a folder artifact's folder holds the file its
// type needs at its top.
func (p *Pack) checkFolder(a Artifact) error {
	need := folderTypes[a.Type]
	if _, ok := p.files[a.File+"/"+need]; !ok {
		return errorf("artifact %s %q: folder %s has no %s at its top", a.Type, a.Name, a.File, need)
	}
	return nil
}

// FolderArchive writes the files of a folder (by path relative to it)
// as a deterministic .tar.gz, the form a folder artifact is rendered in
// (Rendered.Data): the files sorted by path, each a plain file of mode
// 0644 modified at 2000-01-01 UTC, no folder entries. It is the .tar.gz
// 'bot-package add --file' takes.
func FolderArchive(files map[string][]byte) ([]byte, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		if err := checkPath(p); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	entries := make([]entry, 0, len(paths))
	for _, p := range paths {
		entries = append(entries, entry{p, files[p]})
	}
	var b bytes.Buffer
	if err := writeArchive(&b, entries); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FolderFiles reads the files of a folder's .tar.gz (FolderArchive's, or
// any with plain files and folders only) by path, bounded by
// DefaultLimits; a path with "..", an absolute one, a link or a device
// is refused, hidden files are left out.
func FolderFiles(archive []byte) (map[string][]byte, error) {
	l := DefaultLimits
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("the folder's archive is not a .tar.gz: %s", oneLine(err.Error()))
	}
	defer zr.Close()
	stream := &counter{r: zr, max: l.MaxSize + int64(l.MaxEntries)*tarOverhead + tarEnd}
	tr := tar.NewReader(stream)
	files := map[string][]byte{}
	var total int64
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the folder's archive cannot be read: %s", oneLine(err.Error()))
		}
		if n >= l.MaxEntries {
			return nil, fmt.Errorf("the folder's archive has more than %d entries", l.MaxEntries)
		}
		p, skip, err := entryPath(hdr)
		if err != nil {
			return nil, fmt.Errorf("the folder's archive: %s", err)
		}
		if skip || hdr.Typeflag == tar.TypeDir {
			continue
		}
		p = strings.TrimPrefix(path.Clean(p), "./")
		data, err := io.ReadAll(io.LimitReader(tr, l.MaxFile+1))
		if err != nil {
			return nil, fmt.Errorf("the folder's archive cannot be read: %s", oneLine(err.Error()))
		}
		if int64(len(data)) > l.MaxFile {
			return nil, fmt.Errorf("the folder's archive: %s is over the limit of a file, %s", hdr.Name, sizeText(l.MaxFile))
		}
		if total += int64(len(data)); total > l.MaxSize {
			return nil, fmt.Errorf("the folder's archive is over its limit of %s uncompressed", sizeText(l.MaxSize))
		}
		files[p] = data
	}
}

// FolderChecksum is the checksum of a folder's files (by path relative
// to it): "sha256:" + hex of each file's path, size and bytes in path
// order. Any change of a file's content, a file added, removed or
// renamed changes it.
func FolderChecksum(files map[string][]byte) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(files[p]))))
		h.Write([]byte{0})
		h.Write(files[p])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// FolderText is a folder's files as one text for a comparison's line
// diff: each file, in path order, under a line "=== PATH ===" (a file
// that is not UTF-8 text, or holds a NUL, as "(N bytes, binary)").
func FolderText(files map[string][]byte) []byte {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	for _, p := range paths {
		data := files[p]
		fmt.Fprintf(&b, "=== %s ===\n", p)
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			fmt.Fprintf(&b, "(%d bytes, binary)\n", len(data))
			continue
		}
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// DiffText is the text a comparison's line diff shows of a rendered
// artifact: its file, or for a folder its FolderText.
func (r Rendered) DiffText() []byte {
	if !IsFolder(r.Type) {
		return r.Data
	}
	files, err := FolderFiles(r.Data)
	if err != nil {
		return nil
	}
	return FolderText(files)
}
