package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/infra/tenant/tables"
	"github.com/fabricops/fabric/fabric/lib/engine"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// maxObjectBytes bounds what a bot reads of an object into memory.
const maxObjectBytes = 256 << 20

// Store is what the engine's bots reach in the tenant: its datasets and
// objects, and the worker's local files.
type Store struct {
	c *tables.Data
	// dataDir is the tenant's directory of files ("": none).
	dataDir string
}

var _ engine.TableStore = (*Store)(nil)

// NewStore returns the engine store over the tenant data c.
// Files are read from dataDir only.
func NewStore(c *tenant.Data, dataDir string) *Store {
	return &Store{c: tables.New(c), dataDir: dataDir}
}

// missing makes the fabric's "not found" errors the engine's.
type missing struct{ err error }

func (m missing) Error() string { return m.err.Error() }

func (m missing) Is(target error) bool { return target == engine.ErrNotFound }

func (m missing) Unwrap() error { return m.err }

func engineErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return missing{err}
	}
	return err
}

// LoadDataset reads a dataset.
func (s *Store) LoadDataset(ctx context.Context, name string) (*frame.Frame, error) {
	src, _, err := s.c.OpenDataset(ctx, name)
	if err != nil {
		return nil, engineErr(err)
	}
	defer src.Close()
	return frame.ReadFrom(src)
}

// DatasetTable opens a dataset as a lazy table, so that the engine
// streams a recall through the filters and selections that follow it.
func (s *Store) DatasetTable(ctx context.Context, name string) (*lazy.Table, error) {
	t, _, err := s.c.DatasetTable(ctx, name)
	return t, engineErr(err)
}

// SaveDataset stores f as the dataset name (Parquet), replacing it.
func (s *Store) SaveDataset(ctx context.Context, name string, f *frame.Frame) error {
	_, _, err := s.c.AddDataset(ctx, name, "", f.Source(), frame.Parquet)
	return err
}

// DeleteDataset deletes a dataset.
func (s *Store) DeleteDataset(ctx context.Context, name string) error {
	return engineErr(s.c.DeleteDataset(ctx, name))
}

// PutObject stores data as the object folder/name, replacing it.
func (s *Store) PutObject(ctx context.Context, folder, name string, data []byte) error {
	_, err := s.c.AddObject(ctx, folder, name, "", bytes.NewReader(data), true)
	return err
}

// GetObject reads an object's content.
func (s *Store) GetObject(ctx context.Context, folder, name string) ([]byte, error) {
	r, obj, err := s.c.OpenObject(ctx, folder, name)
	if err != nil {
		return nil, engineErr(err)
	}
	defer r.Close()
	if obj.FileSize > maxObjectBytes {
		return nil, fmt.Errorf("object %s/%s is %d MB, more than a bot reads (%d MB)", folder, name, obj.FileSize>>20, maxObjectBytes>>20)
	}
	return io.ReadAll(io.LimitReader(r, maxObjectBytes))
}

// ListObjects lists the objects of a folder ("" for all).
func (s *Store) ListObjects(ctx context.Context, folder string) ([]engine.ObjectInfo, error) {
	objs, err := s.c.Objects(ctx, folder)
	if err != nil {
		return nil, err
	}
	out := make([]engine.ObjectInfo, len(objs))
	for i, o := range objs {
		saved, _ := api.ParseTimestamp(o.SavedTime)
		out[i] = engine.ObjectInfo{Folder: o.Folder, Name: o.Name, Description: o.Description, FileType: o.FileType, Size: o.FileSize, SavedTime: saved}
	}
	return out, nil
}

// DeleteObject deletes an object.
func (s *Store) DeleteObject(ctx context.Context, folder, name string) error {
	return engineErr(s.c.DeleteObject(ctx, folder, name))
}

// SavedList returns a saved list: the lines of the object "savedlists/NAME".
func (s *Store) SavedList(ctx context.Context, name string) ([]string, error) {
	data, err := s.GetObject(ctx, "savedlists", name)
	if err != nil {
		return nil, fmt.Errorf("saved list %q: %v", name, err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out, nil
}

// ReadFile reads a table from a file of the tenant's data directory: a
// relative path that stays inside it (no absolute path, no .. out of it,
// no symbolic link that leads out), so that a tenant reads only its own
// files and none of the host's.
func (s *Store) ReadFile(ctx context.Context, name string) (*frame.Frame, error) {
	if s.dataDir == "" {
		return nil, fmt.Errorf("this worker has no data directory for files: cannot read %q", name)
	}
	if filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return nil, fmt.Errorf("%q is outside the tenant's data directory: give a path relative to it, without ..", name)
	}
	root, err := os.OpenRoot(s.dataDir)
	if err != nil {
		return nil, fmt.Errorf("the tenant's data directory: %v", err)
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	src, err := frame.OpenFile(f, name, frame.Auto)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return frame.ReadFrom(src)
}
