package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/libraries"
	"github.com/fabricops/fabric/fabric/infra/libraries/libstore"
	"github.com/nats-io/nats.go"
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
	return c.libraries(ctx, api.LibrariesAsk{Op: "list", Target: t, WaitSeconds: boundWait(wait).Seconds()})
}

// LibraryInstall asks the pods t selects to stage libraries: each name is
// a library (its newest file) or a file name, and "all" is every
// library's newest file. A pod skips what it has as new. It waits at
// most wait for the pods' answers.
func (c *Client) LibraryInstall(ctx context.Context, names []string, t api.LibraryTarget, wait time.Duration) (api.LibraryReport, error) {
	return c.libraries(ctx, api.LibrariesAsk{Op: "install", Target: t, Libraries: names, WaitSeconds: boundWait(wait).Seconds()})
}

// libraries asks the api-server, which asks the pods; without an
// api-server the client asks them itself.
func (c *Client) libraries(ctx context.Context, req api.LibrariesAsk) (api.LibraryReport, error) {
	var rep api.LibraryReport
	data, err := json.Marshal(req)
	if err != nil {
		return rep, err
	}
	wait := time.Duration(req.WaitSeconds * float64(time.Second))
	rctx, cancel := context.WithTimeout(ctx, wait+Timeout)
	defer cancel()
	msg, err := c.nc.RequestWithContext(rctx, api.SubjectLibraries, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		s, err := c.Store(ctx)
		if err != nil {
			return rep, err
		}
		return libstore.Run(ctx, c.nc, s, req)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return rep, fmt.Errorf("the api-server did not answer within %s", wait+Timeout)
	case err != nil:
		return rep, err
	}
	return rep, decode(msg.Data, &rep)
}

// boundWait keeps a wait within (0, LibraryMaxWait].
func boundWait(d time.Duration) time.Duration {
	if d <= 0 || d > LibraryMaxWait {
		return LibraryMaxWait
	}
	return d
}
