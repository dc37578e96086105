package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
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
// document against the stored one. Nothing is written.
func (c *Client) CompareBundle(ctx context.Context, b *Bundle, types []string) ([]BundleRow, error) {
	return c.bundleRequest(ctx, api.BundleDeployRequest{Files: b.Files, Types: types, Compare: true})
}

// DeployBundle asks the api-server to deploy a bundle's artifacts of the
// types o.Types (none: all) and returns a row for each. The api-server
// does it as one transaction: every document is checked before anything
// is written, an artifact the fabric has unchanged is left as it is, and
// when a write fails what the deployment wrote is undone (the error says
// so).
func (c *Client) DeployBundle(ctx context.Context, b *Bundle, o BundleOptions) ([]BundleRow, error) {
	return c.bundleRequest(ctx, api.BundleDeployRequest{Files: b.Files, Types: o.Types})
}

// bundleRequest sends req to the api-server in one message, waiting at
// most api.BundleWait (or until ctx ends), and returns its rows. A bundle
// that does not fit in a message of the fabric is refused before it is
// sent.
func (c *Client) bundleRequest(ctx context.Context, req api.BundleDeployRequest) ([]BundleRow, error) {
	what := "deploy"
	if req.Compare {
		what = "compare"
	}
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if max := c.nc.MaxPayload(); int64(len(data)) > max {
		return nil, fmt.Errorf("the bundle makes a request of %d bytes, more than the fabric's message limit of %d bytes (NATS max_payload): %s it as smaller bundles", len(data), max, what)
	}
	wctx, cancel := context.WithTimeout(ctx, api.BundleWait)
	defer cancel()
	msg, err := c.nc.RequestWithContext(wctx, api.SubjectBundleDeploy, data)
	switch {
	case err == nil:
	case errors.Is(err, nats.ErrNoResponders):
		return nil, fmt.Errorf("no api-server is running: it %ss bundles (start one: client fabric up)", what)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("stopped waiting for the api-server to %s the bundle: %v (a deployment goes on there: compare the bundle to see what it did)", what, context.Cause(ctx))
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return nil, fmt.Errorf("timed out after %s waiting for the api-server to %s the bundle (a deployment may go on there: compare the bundle to see what it did)", api.BundleWait, what)
	default:
		return nil, fmt.Errorf("asking the api-server to %s the bundle: %v", what, err)
	}
	var rows []BundleRow
	if err := decode(msg.Data, &rows); err != nil {
		return nil, err
	}
	return rows, nil
}
