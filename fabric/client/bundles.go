package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/nats-io/nats.go"
)

// Changes of a bundle's artifact against what the fabric has (the
// api-server's, api.ChangeNew and so on).
const (
	ChangeNew       = api.ChangeNew
	ChangeChanged   = api.ChangeChanged
	ChangeUnchanged = api.ChangeUnchanged
)

// BundleRow is an artifact of a bundle, as bundle-deploy reports it
// (api.BundleRow).
type BundleRow = api.BundleRow

// BundleOptions says what DeployBundle deploys.
type BundleOptions struct {
	// Types are the types of artifacts to deploy (BundleTypes); none: all.
	Types []string
}

// CompareBundle asks the api-server which of a bundle's artifacts of the
// given types (none: all) are new, changed or unchanged: a pipeline's
// content against its latest version, a blueprint's or a dashboard's
// document against the stored one. Nothing is written (but the staged
// files, which are deleted again).
func (c *Client) CompareBundle(ctx context.Context, b *Bundle, types []string) ([]BundleRow, error) {
	return c.bundleRequest(ctx, b, api.BundleDeployRequest{Types: types, Compare: true})
}

// DeployBundle asks the api-server to deploy a bundle's artifacts of the
// types o.Types (none: all) and returns a row for each. The api-server
// does it as one transaction: every document is checked before anything
// is written, an artifact the fabric has unchanged is left as it is, and
// when a write fails what the deployment wrote is undone (the error says
// so).
func (c *Client) DeployBundle(ctx context.Context, b *Bundle, o BundleOptions) ([]BundleRow, error) {
	return c.bundleRequest(ctx, b, api.BundleDeployRequest{Types: o.Types})
}

// bundleRequest stages the bundle's documents in the tenant's object
// store (within api.BundleStageTimeout), sends req naming them to the
// api-server, waiting at most api.BundleWait (or until ctx ends), and
// returns its rows. The api-server deletes the staged files once it has
// taken the request, whatever the outcome; when the request fails before
// it is taken, they are deleted here.
func (c *Client) bundleRequest(ctx context.Context, b *Bundle, req api.BundleDeployRequest) ([]BundleRow, error) {
	what := "deploy"
	if req.Compare {
		what = "compare"
	}
	st, err := c.Store(ctx)
	if err != nil {
		return nil, err
	}
	req.Files, err = stageBundle(ctx, st, b)
	if err != nil {
		return nil, err
	}
	taken := false
	defer func() {
		if !taken {
			unstage(st, req.Files)
		}
	}()
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if max := c.nc.MaxPayload(); int64(len(data)) > max {
		return nil, fmt.Errorf("the list of the bundle's %d files makes a request of %d bytes, more than the fabric's message limit of %d bytes (NATS max_payload): %s it as smaller bundles", len(req.Files), len(data), max, what)
	}
	msg, err := c.transaction(ctx, api.SubjectBundleDeploy, data, api.BundleWait, transactionWords{
		verb: what, noun: "bundle", after: "compare the bundle to see what it did"})
	// Unless NATS says no api-server had it, the request may have been
	// taken: its staged files are then the api-server's to delete.
	taken = !errors.Is(err, nats.ErrNoResponders)
	if err != nil {
		return nil, err
	}
	var rows []BundleRow
	if err := decode(msg.Data, &rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// stageBundle reads the bundle's archive again and stores each of its
// documents, streamed, under a new folder of api.BundleStagePrefix, and
// returns the documents with their staged paths. It stops at
// api.BundleStageTimeout or when ctx ends; on an error what it staged is
// deleted again.
func stageBundle(ctx context.Context, st *store.Store, b *Bundle) (files []BundleFile, err error) {
	if b.path == "" {
		return nil, errors.New("the bundle was not opened from an archive (client.OpenBundle)")
	}
	f, err := os.Open(b.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sctx, cancel := context.WithTimeout(ctx, api.BundleStageTimeout)
	defer cancel()
	defer func() {
		if err != nil {
			unstage(st, files)
			files = nil
		}
	}()
	at := map[int]int{}
	for i, e := range b.entries {
		at[e.n] = i
	}
	out := make([]BundleFile, len(b.Files))
	folder := api.BundleStagePrefix + tenant.NewToken() + tenant.NewToken() + "/"
	changed := fmt.Errorf("%s: the archive changed since it was read: deploy it again", b.name)
	_, err = walkBundle(bufio.NewReader(f), b.name, func(e entry, r io.Reader) error {
		i, ok := at[e.n]
		if !ok {
			return nil // not a document
		}
		if e.name != b.entries[i].name || e.size != b.entries[i].size {
			return changed
		}
		fl := b.Files[i]
		fl.Blob = folder + strconv.Itoa(i)
		files = append(files, fl) // before the put: a failed one may leave a blob
		out[i] = fl
		size, err := st.PutBlob(sctx, fl.Blob, io.LimitReader(r, e.size))
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("stopped staging the bundle's files in the tenant's object store: %v", context.Cause(ctx))
		case sctx.Err() != nil:
			return fmt.Errorf("timed out after %s staging the bundle's files in the tenant's object store", api.BundleStageTimeout)
		case err != nil:
			return fmt.Errorf("staging %s in the tenant's object store: %v", fl.Path, err)
		case size != e.size:
			return changed
		}
		return nil
	})
	if err == nil && len(files) != len(b.Files) {
		err = changed
	}
	if err != nil {
		return files, err
	}
	return out, nil // in the bundle's order
}

// unstageTimeout bounds the deleting of a bundle's staged files; what it
// leaves, the api-server's sweep removes.
const unstageTimeout = 30 * time.Second

// unstage deletes staged files, giving up after unstageTimeout.
func unstage(st *store.Store, files []BundleFile) {
	deadline := time.Now().Add(unstageTimeout)
	for _, f := range files {
		if time.Now().After(deadline) {
			return
		}
		_ = st.DeleteBlob(context.Background(), f.Blob)
	}
}

// transactionWords name a transaction in the errors of a request for it:
// what the api-server does (verb) to what (noun), and how to see its
// outcome when the client stops waiting (after).
type transactionWords struct{ verb, noun, after string }

// transaction sends a request for a transaction to the api-server and
// waits at most wait (or until ctx ends) for its answer. The errors say
// which transaction, and when it may go on without the client, how to
// see what it did; one that no api-server took is nats.ErrNoResponders.
func (c *Client) transaction(ctx context.Context, subject string, data []byte, wait time.Duration, w transactionWords) (*nats.Msg, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	msg, err := c.nc.RequestWithContext(wctx, subject, data)
	switch {
	case err == nil:
		return msg, nil
	case errors.Is(err, nats.ErrNoResponders):
		return nil, noAPIServer{fmt.Sprintf("no api-server is running: it %ss %ss (start one: client fabric up)", w.verb, w.noun)}
	case ctx.Err() != nil:
		return nil, fmt.Errorf("stopped waiting for the api-server to %s the %s: %v (it goes on there: %s)", w.verb, w.noun, context.Cause(ctx), w.after)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return nil, fmt.Errorf("timed out after %s waiting for the api-server to %s the %s (it may go on there: %s)", wait, w.verb, w.noun, w.after)
	}
	return nil, fmt.Errorf("asking the api-server to %s the %s: %v", w.verb, w.noun, err)
}

// noAPIServer is the error of a request no api-server took; it is
// nats.ErrNoResponders.
type noAPIServer struct{ msg string }

func (e noAPIServer) Error() string { return e.msg }
func (e noAPIServer) Unwrap() error { return nats.ErrNoResponders }
