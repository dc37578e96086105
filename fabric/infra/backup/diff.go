package backup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/infra/artifact"
)

// Statuses of an artifact in a diff.
const (
	Identical    = "Identical"
	OnlyInFirst  = "Only In First"
	OnlyInSecond = "Only In Second"
	Differ       = "Differ"
)

// Entry is an artifact in a diff: its kind's folder, its file's name,
// and how the two backups hold it. First and Second are its documents
// as compared (indented JSON, keys sorted, saved_time left out), empty
// where a backup lacks it.
type Entry struct {
	Dir, Name     string
	Status        string
	First, Second string
}

// ignored are the fields a diff leaves out: when an artifact was saved
// says nothing of what it is.
var ignored = []string{"saved_time"}

// Diff compares two backups, kind by kind (only the kinds of codes, when
// given) and name by name. A backup's files may be JSON or YAML: the
// documents are compared, not their text.
func Diff(first, second string, codes []string) ([]Entry, error) {
	kinds := Kinds
	if len(codes) > 0 {
		kinds = nil
		seen := map[*Kind]bool{}
		for _, c := range codes {
			k, ok := KindByCode(c)
			if !ok {
				var known []string
				for _, k := range Kinds {
					known = append(known, k.Code+" ("+k.Dir+")")
				}
				return nil, fmt.Errorf("no kind %q: the kinds are %s", c, strings.Join(known, ", "))
			}
			if !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	for _, dir := range []string{first, second} {
		if err := checkBackup(dir); err != nil {
			return nil, err
		}
	}
	var out []Entry
	for _, k := range kinds {
		a, err := readKind(first, k.Dir)
		if err != nil {
			return nil, err
		}
		b, err := readKind(second, k.Dir)
		if err != nil {
			return nil, err
		}
		names := map[string]bool{}
		for n := range a {
			names[n] = true
		}
		for n := range b {
			names[n] = true
		}
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			x, inA := a[n]
			y, inB := b[n]
			e := Entry{Dir: k.Dir, Name: n}
			switch {
			case !inB:
				e.Status, e.First = OnlyInFirst, text(x)
			case !inA:
				e.Status, e.Second = OnlyInSecond, text(y)
			case reflect.DeepEqual(x, y):
				e.Status, e.First, e.Second = Identical, text(x), text(y)
			default:
				e.Status, e.First, e.Second = Differ, text(x), text(y)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// checkBackup checks that dir is a backup: a directory with a manifest.
func checkBackup(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: %v", dir, trimPath(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); err != nil {
		return fmt.Errorf("%s is not a backup (no %s): 'client demo backup --to_dir DIR' makes one", dir, ManifestName)
	}
	return nil
}

// readKind reads a kind's folder of a backup: each document by its file
// name, as plain values without the ignored fields.
func readKind(dir, kind string) (map[string]any, error) {
	entries, err := os.ReadDir(filepath.Join(dir, kind))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, kind), trimPath(err))
	}
	docs := map[string]any{}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".json" && ext != ".yaml" && ext != ".yml") {
			continue
		}
		path := filepath.Join(dir, kind, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, trimPath(err))
		}
		d, err := artifact.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		for _, f := range ignored {
			d.Delete(f)
		}
		name := strings.TrimSuffix(e.Name(), ext)
		if _, dup := docs[name]; dup {
			return nil, fmt.Errorf("%s: %s is there twice (as JSON and YAML)", filepath.Join(dir, kind), name)
		}
		v, err := d.Decode()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		docs[name] = v
	}
	return docs, nil
}

// text is a document as the diff shows it: indented JSON, keys sorted.
func text(v any) string {
	data, _ := json.MarshalIndent(v, "", "  ")
	return string(data) + "\n"
}
