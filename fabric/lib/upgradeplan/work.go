package upgradeplan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/fabricops/fabric/fabric/lib/deploydir"
)

// Change is one edit of a step: a file's old and new text, or a
// directory made.
type Change struct {
	// Path is the file's or directory's path in the deployment directory.
	Path string `json:"path"`
	// Dir is set for a directory made.
	Dir bool `json:"dir,omitempty"`
	// Created is set for a file the step makes.
	Created bool   `json:"created,omitempty"`
	Old     []byte `json:"-"`
	New     []byte `json:"-"`
}

// Diff is the change as a unified diff (a directory made as one line).
func (c Change) Diff() string {
	if c.Dir {
		return "+ directory " + c.Path + "/\n"
	}
	from := "a/" + c.Path
	if c.Created {
		from = "/dev/null"
	}
	old, new := c.Old, c.New
	if path.Base(c.Path) == deploydir.Policy {
		// A credential that is not sealed yet is never printed.
		old, new = hideCredentials(old), hideCredentials(new)
	}
	return udiff.Unified(from, "b/"+c.Path, string(old), string(new))
}

// hideCredentials is policy.json with its credentials not sealed yet
// shown as ********.
func hideCredentials(data []byte) []byte {
	out, _, err := deploydir.EncryptCredentials(data, func(string) (string, error) { return "********", nil })
	if err != nil {
		return []byte("(policy.json does not read as JSON: its text is not shown)\n")
	}
	return out
}

// work is the deployment directory as the steps see it: its files on
// disk, overlaid with the edits of the steps before (a plan writes
// nothing).
type work struct {
	o       *Options
	files   map[string][]byte
	dirs    map[string]bool
	changes []Change
	encrypt func(string) (string, error)
}

func newWork(o *Options, encrypt func(string) (string, error)) *work {
	return &work{o: o, files: map[string][]byte{}, dirs: map[string]bool{}, encrypt: encrypt}
}

// path is the path on disk of a name in the directory.
func (w *work) path(name string) string { return filepath.Join(w.o.Dir, filepath.FromSlash(name)) }

// exists reports whether the directory has a file.
func (w *work) exists(name string) bool {
	if _, ok := w.files[name]; ok {
		return true
	}
	st, err := os.Stat(w.path(name))
	return err == nil && st.Mode().IsRegular()
}

// read returns a file's text.
func (w *work) read(name string) ([]byte, error) {
	if b, ok := w.files[name]; ok {
		return b, nil
	}
	b, err := os.ReadFile(w.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s in the deployment directory", w.o.Dir, name)
	}
	return b, err
}

// edit runs an edit of a file and records its change.
func (w *work) edit(name string, edit func([]byte) ([]byte, bool, error)) error {
	old, err := w.read(name)
	if err != nil {
		return err
	}
	out, changed, err := edit(old)
	if err != nil {
		if strings.HasPrefix(err.Error(), name+":") {
			return err
		}
		return fmt.Errorf("%s: %v", name, err)
	}
	if changed {
		w.files[name] = out
		w.changes = append(w.changes, Change{Path: name, Old: old, New: out})
	}
	return nil
}

// create makes a file (or replaces one of other content).
func (w *work) create(name string, data []byte) {
	if old, err := w.read(name); err == nil {
		if string(old) != string(data) {
			w.files[name] = data
			w.changes = append(w.changes, Change{Path: name, Old: old, New: data})
		}
		return
	}
	w.files[name] = data
	w.changes = append(w.changes, Change{Path: name, Created: true, New: data})
}

// mkdir makes a directory, with its parents.
func (w *work) mkdir(name string) {
	if w.dirs[name] {
		return
	}
	if st, err := os.Stat(w.path(name)); err == nil && st.IsDir() {
		return
	}
	w.dirs[name] = true
	w.changes = append(w.changes, Change{Path: name, Dir: true})
}

// take returns the changes recorded since the last take.
func (w *work) take() []Change {
	c := w.changes
	w.changes = nil
	return c
}

// BackupSuffix ends the name of a file's copy from before its first
// change.
const BackupSuffix = ".bak-8.0.0"

// write makes a step's changes on disk: each file is copied to
// FILE.bak-8.0.0 before its first change (a backup there is never
// overwritten), then replaced atomically, keeping its mode.
func write(dir string, changes []Change) error {
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Dir && !changes[j].Dir })
	for _, c := range changes {
		p := filepath.Join(dir, filepath.FromSlash(c.Path))
		if c.Dir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		mode := fs.FileMode(0o644)
		if st, err := os.Stat(p); err == nil {
			mode = st.Mode().Perm()
			if err := backup(p, mode); err != nil {
				return err
			}
		}
		if err := writeFile(p, c.New, mode); err != nil {
			return err
		}
	}
	return nil
}

// backup copies a file to its backup unless there is one.
func backup(p string, mode fs.FileMode) error {
	b := p + BackupSuffix
	if _, err := os.Lstat(b); err == nil {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(b, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeFile replaces a file atomically: a temporary file beside it,
// synced, renamed over it.
func writeFile(p string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
