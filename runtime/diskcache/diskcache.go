// Package diskcache keeps, across processes, what one build of the shell
// derives from its bundled scripts, so that a command decodes it instead
// of working it out again at every start.
package diskcache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// New returns the cache kept in dir; nil (a cache that keeps nothing)
// when dir is "".
func New(dir string) *Cache {
	if dir == "" {
		return nil
	}
	return &Cache{dir: dir}
}

// A Cache keeps what a build of the shell derives from its bundled
// scripts (their compiled programs, what their commands lack, the index
// of the commands they declare) in files under a directory of its own,
// so that the next process decodes them instead of working them out
// again: a bundled script never changes within a build. Entries are named by a hash of what they derive from
// and kept per build (the executable's path, size and time); the newest
// few builds' directories are kept. Every failure is a miss: the cache
// only ever saves time.
type Cache struct {
	dir string
}

// keptBuilds is how many builds' directories a cache keeps (the lean and
// the data client alternate, and a developer rebuilds).
const keptBuilds = 4

// cacheVersion changes when the entries' format does.
const cacheVersion = "fsc1"

// buildKey identifies the running executable by its path, size and
// modification time: a rebuilt or upgraded binary has another one. ""
// when it cannot be told (then nothing is cached).
var buildKey = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%d", cacheVersion, exe, st.Size(), st.ModTime().UnixNano()))
	return hex.EncodeToString(sum[:8])
})

// path is the file of the entry named by parts (hashed), or "".
func (c *Cache) path(parts ...string) string {
	if c == nil || c.dir == "" || buildKey() == "" {
		return ""
	}
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return filepath.Join(c.dir, buildKey(), hex.EncodeToString(h.Sum(nil)[:16]))
}

// Get returns the entry named by parts.
func (c *Cache) Get(parts ...string) ([]byte, bool) {
	p := c.path(parts...)
	if p == "" {
		return nil, false
	}
	data, err := os.ReadFile(p)
	return data, err == nil
}

// Put stores the entry named by parts, atomically (a reader sees all of
// it or none); the first entry of a build prunes the older builds.
func (c *Cache) Put(data []byte, parts ...string) {
	p := c.path(parts...)
	if p == "" {
		return
	}
	dir := filepath.Dir(p)
	if _, err := os.Stat(dir); err != nil {
		if os.MkdirAll(dir, 0o700) != nil {
			return
		}
		c.prune()
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
	}
}

// prune removes the directories of all but the newest keptBuilds builds.
func (c *Cache) prune() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type build struct {
		name string
		mod  int64
	}
	var builds []build
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() {
			builds = append(builds, build{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(builds, func(i, j int) bool { return builds[i].mod > builds[j].mod })
	for _, b := range builds[min(len(builds), keptBuilds):] {
		if b.name != buildKey() {
			os.RemoveAll(filepath.Join(c.dir, b.name))
		}
	}
}
