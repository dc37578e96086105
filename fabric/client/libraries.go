package client

import (
	"context"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/libraries"
	"github.com/fabricops/fabric/fabric/infra/libraries/libstore"
)

// Library waits: the defaults of library list and install (SPEC 8), and
// the most either may be given.
const (
	LibraryListWait    = 30 * time.Second
	LibraryInstallWait = 300 * time.Second
	LibraryMaxWait     = time.Hour
)

// LibraryMaxSize is the largest library file (libraries.MaxSize).
const LibraryMaxSize = libraries.MaxSize

// LibraryUpload checks the library file at path and stores it in the
// tenant's object store.
func (c *Client) LibraryUpload(ctx context.Context, path string) (api.LibraryFile, error) {
	s, err := c.Store(ctx)
	if err != nil {
		return api.LibraryFile{}, err
	}
	return libstore.Upload(ctx, s, path)
}

// LibraryFiles returns the library files of the object store, by library
// and version.
func (c *Client) LibraryFiles(ctx context.Context) ([]api.LibraryFile, error) {
	s, err := c.Store(ctx)
	if err != nil {
		return nil, err
	}
	return libstore.Files(ctx, s)
}

// LibraryDelete removes library files (by file name) from the object
// store; the pods' staged and installed copies stay.
func (c *Client) LibraryDelete(ctx context.Context, filenames []string) ([]api.LibraryFile, error) {
	s, err := c.Store(ctx)
	if err != nil {
		return nil, err
	}
	return libstore.Delete(ctx, s, filenames)
}

// LibraryList asks the pods t selects for their libraries, waiting at
// most wait for their answers.
func (c *Client) LibraryList(ctx context.Context, t api.LibraryTarget, wait time.Duration) (api.LibraryReport, error) {
	files, err := c.LibraryFiles(ctx)
	if err != nil {
		return api.LibraryReport{}, err
	}
	return libstore.Ask(ctx, c.nc, t, api.LibrariesRequest{Op: "list", Latest: libstore.Latest(files)}, boundWait(wait))
}

// LibraryInstall asks the pods t selects to stage libraries: each name is
// a library (its newest file) or a file name, and "all" is every
// library's newest file. A pod skips what it has as new. It waits at
// most wait for the pods' answers.
func (c *Client) LibraryInstall(ctx context.Context, names []string, t api.LibraryTarget, wait time.Duration) (api.LibraryReport, error) {
	files, err := c.LibraryFiles(ctx)
	if err != nil {
		return api.LibraryReport{}, err
	}
	latest := libstore.Latest(files)
	var install []api.LibraryFile
	seen := map[string]bool{}
	pick := func(f api.LibraryFile) {
		if !seen[f.Filename] {
			seen[f.Filename] = true
			install = append(install, f)
		}
	}
	for _, name := range names {
		if name == "all" {
			for _, f := range latest {
				pick(f)
			}
			continue
		}
		found := false
		for _, f := range latest {
			if f.Package == libraries.Normalize(name) {
				pick(f)
				found = true
			}
		}
		for _, f := range files {
			if !found && f.Filename == name {
				pick(f)
				found = true
			}
		}
		if !found {
			return api.LibraryReport{}, fmt.Errorf("no library %s in the object store (library upload stores one)", name)
		}
	}
	if len(install) == 0 {
		return api.LibraryReport{}, fmt.Errorf("the object store has no library to install")
	}
	return libstore.Ask(ctx, c.nc, t, api.LibrariesRequest{Op: "install", Latest: latest, Install: install}, boundWait(wait))
}

// boundWait keeps a wait within (0, LibraryMaxWait].
func boundWait(d time.Duration) time.Duration {
	if d <= 0 || d > LibraryMaxWait {
		return LibraryMaxWait
	}
	return d
}
