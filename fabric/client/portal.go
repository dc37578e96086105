package client

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/fabricops/fabric/fabric/infra/artifact"
)

// ErrNoPortal is the error of a fabric whose network configuration
// names no portal.
var ErrNoPortal = errors.New("the network configuration names no portal (its portal.url): run a portal pod (fabricd --pods portal) and set it; the local fabric sets it itself")

// DashboardURL returns the portal's URL of the tenant's dashboard name,
// once it has checked that the dashboard exists.
func (c *Client) DashboardURL(ctx context.Context, name string) (string, error) {
	base := strings.TrimRight(c.Config.Portal.URL, "/")
	if base == "" {
		return "", ErrNoPortal
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("the network configuration's portal.url " + strconv.Quote(base) + " is not an http(s) URL")
	}
	st, err := c.Data.Store(ctx)
	if err != nil {
		return "", err
	}
	if _, err := (&artifact.Repo{Store: st}).Get(ctx, artifact.Dashboard, name); err != nil {
		return "", err
	}
	return base + "/d/" + url.PathEscape(name), nil
}
