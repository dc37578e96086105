package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/lib/pack"
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

// PublishPackReport stores a comparison's HTML report where the portal
// serves it and returns its URL there ("" when the network configuration
// names no portal: nothing is stored). The folder keeps the newest
// api.MaxPackReports reports.
func (c *Client) PublishPackReport(ctx context.Context, r pack.Report) (string, error) {
	base := strings.TrimRight(c.Config.Portal.URL, "/")
	if base == "" {
		return "", nil
	}
	page, err := r.HTML()
	if err != nil {
		return "", err
	}
	now := time.Now().UTC()
	// The time first: names sort as the reports were made.
	name := reportName.ReplaceAllString(fmt.Sprintf("%s-%s-%s.html", now.Format("20060102T150405.000000000Z"), r.Summary.LeftPackName, r.Summary.LeftPackVersion), "_")
	if _, err := c.Data.AddObject(ctx, api.PackReportsFolder, name, "pack compare report", bytes.NewReader(page), true); err != nil {
		return "", fmt.Errorf("storing the report for the portal: %w", err)
	}
	objs, err := c.Data.Objects(ctx, api.PackReportsFolder)
	if err != nil {
		return "", err
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Name > objs[j].Name })
	for _, o := range objs[min(len(objs), api.MaxPackReports):] {
		_ = c.Data.DeleteObject(ctx, api.PackReportsFolder, o.Name)
	}
	return base + "/reports/" + url.PathEscape(name), nil
}

// reportName is what a report's name may not hold.
var reportName = regexp.MustCompile(`[^A-Za-z0-9._-]`)
