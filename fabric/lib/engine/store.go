package engine

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// Store is what bots reach outside the frame in hand: datasets, objects,
// saved lists and files. The worker implements it over the object store;
// tests implement it in memory. A Store never sees "temp-" datasets, which
// the engine keeps in memory for one run.
//
// A Store reports a dataset, object or list that does not exist with an
// error wrapping ErrNotFound (or fs.ErrNotExist): "@dm:save append = 'yes'"
// then saves a new dataset.
type Store interface {
	// LoadDataset loads a dataset.
	LoadDataset(ctx context.Context, name string) (*frame.Frame, error)
	// SaveDataset saves a dataset, replacing it. Appending is done by the
	// engine (load, concatenate, save).
	SaveDataset(ctx context.Context, name string, f *frame.Frame) error
	// DeleteDataset deletes a dataset.
	DeleteDataset(ctx context.Context, name string) error
	// PutObject writes an object, replacing it.
	PutObject(ctx context.Context, folder, name string, data []byte) error
	// GetObject reads an object.
	GetObject(ctx context.Context, folder, name string) ([]byte, error)
	// ListObjects lists the objects of a folder ("" for every folder).
	ListObjects(ctx context.Context, folder string) ([]ObjectInfo, error)
	// DeleteObject deletes an object.
	DeleteObject(ctx context.Context, folder, name string) error
	// SavedList returns the items of a saved list: a named list of
	// strings kept by the fabric (the worker keeps them as objects of one
	// item per line, or reads the first column of a dataset of that name).
	// "@dm:savedlist" makes a frame of it.
	SavedList(ctx context.Context, name string) ([]string, error)
	// ReadFile loads a file the worker can reach ("@files:loadfile").
	ReadFile(ctx context.Context, path string) (*frame.Frame, error)
}

// ObjectInfo describes an object of the object store (SPEC 2.7).
type ObjectInfo struct {
	Folder      string
	Name        string
	Description string
	FileType    string
	Size        int64
	SavedTime   time.Time
}

// ErrNotFound is the error, possibly wrapped, a Store returns for a
// dataset, object or saved list that does not exist.
var ErrNotFound = errors.New("not found")

func isNotFound(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}

// errNoStore is returned by bots that need a Store when the engine has
// none.
var errNoStore = errors.New("the engine has no store to reach datasets, objects and files")

// tempPrefix begins the names of the datasets that live for one run.
const tempPrefix = "temp-"

func isTemp(name string) bool {
	return len(name) > len(tempPrefix) && name[:len(tempPrefix)] == tempPrefix
}

// store returns the engine's Store.
func (r *run) store() (Store, error) {
	if r.e.Store == nil {
		return nil, errNoStore
	}
	return r.e.Store, nil
}

// load loads a dataset: a temp- one from memory, others from the Store.
// param names the parameter for errors.
func (r *run) load(param, name string) (*frame.Frame, error) {
	if isTemp(name) {
		f, ok := r.temps[name]
		if !ok {
			return nil, paramErr(param, "no dataset named '%s' in this job (temp- datasets live for one job)", name)
		}
		return f, nil
	}
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	f, err := s.LoadDataset(r.ctx, name)
	if err != nil {
		return nil, loadErr(param, name, err)
	}
	return f, nil
}

// loadErr is the error of a step whose dataset name (its parameter
// param) could not be loaded.
func loadErr(param, name string, err error) error {
	if isNotFound(err) {
		return paramErr(param, "no dataset named '%s'", name)
	}
	return paramErr(param, "loading '%s': %v", name, err)
}

// save saves a dataset, appending to an existing one with app.
func (r *run) save(param, name string, f *frame.Frame, app bool) error {
	if isTemp(name) {
		old, had := r.temps[name]
		if had && app {
			var err error
			if f, err = concat(old, f); err != nil {
				return err
			}
		}
		if had {
			r.release(heldBytes(old))
		}
		if _, err := r.hold(f); err != nil {
			if had {
				_, _ = r.hold(old)
			}
			return err
		}
		r.temps[name] = f
		return nil
	}
	s, err := r.store()
	if err != nil {
		return err
	}
	if app {
		old, err := s.LoadDataset(r.ctx, name)
		switch {
		case err == nil:
			if f, err = concat(old, f); err != nil {
				return err
			}
		case !isNotFound(err):
			return paramErr(param, "loading '%s' to append to it: %v", name, err)
		}
	}
	if err := s.SaveDataset(r.ctx, name, f); err != nil {
		return paramErr(param, "saving '%s': %v", name, err)
	}
	return nil
}
