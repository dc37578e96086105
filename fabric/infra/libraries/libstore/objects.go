// Package libstore keeps the tenant's library files in its object store,
// under api.LibrariesFolder (Upload, Files, Latest, Delete), and asks pods
// about their libraries (Targets, Ask: the fan-out of library list and
// install). Package libraries names and checks the files.
package libstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/libraries"
	"github.com/fabricops/fabric/fabric/infra/store"
)

// Upload checks the library file at path (its name, its size, its
// archive) and stores it in the object store under api.LibrariesFolder,
// replacing a file of the same name.
func Upload(ctx context.Context, s *store.Store, path string) (api.LibraryFile, error) {
	n, err := libraries.Parse(filepath.Base(path))
	if err != nil {
		return api.LibraryFile{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return api.LibraryFile{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, libraries.MaxSize+1))
	if err != nil {
		return api.LibraryFile{}, err
	}
	if len(data) > libraries.MaxSize {
		return api.LibraryFile{}, fmt.Errorf("library file %s is larger than %d MiB", n.Filename, libraries.MaxSize>>20)
	}
	if err := libraries.CheckArchive(n.Kind, data); err != nil {
		return api.LibraryFile{}, fmt.Errorf("library file %s %v", n.Filename, err)
	}
	size, err := s.PutBlob(ctx, api.LibrariesFolder+n.Filename, bytes.NewReader(data))
	if err != nil {
		return api.LibraryFile{}, err
	}
	return api.LibraryFile{Package: n.Package, Version: n.Version, Filename: n.Filename, Size: size}, nil
}

// Files returns the library files of the object store, by library then
// version (oldest first).
func Files(ctx context.Context, s *store.Store) ([]api.LibraryFile, error) {
	blobs, err := s.BlobInfos(ctx)
	if err != nil {
		return nil, err
	}
	out := []api.LibraryFile{}
	for _, b := range blobs {
		name, ok := strings.CutPrefix(b.Path, api.LibrariesFolder)
		if !ok {
			continue
		}
		n, err := libraries.Parse(name)
		if err != nil {
			continue
		}
		out = append(out, api.LibraryFile{Package: n.Package, Version: n.Version, Filename: n.Filename, Size: b.Size})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		if c := libraries.CompareVersions(out[i].Version, out[j].Version); c != 0 {
			return c < 0
		}
		return out[i].Filename < out[j].Filename
	})
	return out, nil
}

// Latest returns the newest file of each library of files (as Files
// orders them).
func Latest(files []api.LibraryFile) []api.LibraryFile {
	out := []api.LibraryFile{}
	for i, f := range files {
		if i+1 < len(files) && files[i+1].Package == f.Package {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Delete removes library files from the object store by file name; the
// copies staged or installed in pods stay. A name the store lacks is an
// error, and nothing is removed then.
func Delete(ctx context.Context, s *store.Store, filenames []string) ([]api.LibraryFile, error) {
	var out []api.LibraryFile
	for _, name := range filenames {
		n, err := libraries.Parse(name)
		if err != nil {
			return nil, err
		}
		size, err := s.BlobSize(ctx, api.LibrariesFolder+name)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("no library file %s in the object store", name)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, api.LibraryFile{Package: n.Package, Version: n.Version, Filename: name, Size: size})
	}
	for _, f := range out {
		if err := s.DeleteBlob(ctx, api.LibrariesFolder+f.Filename); err != nil {
			return nil, err
		}
	}
	return out, nil
}
