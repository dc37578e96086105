package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/packs"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/lib/pack"
	"github.com/fabricops/fabric/fabric/lib/safefile"
)

type (
	// PackRecord is api.PackRecord.
	PackRecord = api.PackRecord
	// PackRow is api.PackRow.
	PackRow = api.PackRow
	// PackRequest is api.PackRequest.
	PackRequest = api.PackRequest
	// PackListRow is packs.Row.
	PackListRow = packs.Row
	// PackCompareOptions is packs.CompareOptions.
	PackCompareOptions = packs.CompareOptions
	// PackArtifactConfig is packs.ArtifactConfig.
	PackArtifactConfig = packs.ArtifactConfig
)

// ErrNoPack is the error of a pack version the catalogue does not have.
var ErrNoPack = packs.ErrNotFound

// DefaultPackArtifactConfig is packs.DefaultArtifactConfig.
var DefaultPackArtifactConfig = packs.DefaultArtifactConfig

// packs returns the tenant's pack catalogue and an activator for what
// the client does itself (compare).
func (c *Client) packs(ctx context.Context) (*packs.Activator, packs.Env, error) {
	st, err := c.Store(ctx)
	if err != nil {
		return nil, packs.Env{}, err
	}
	env := packs.Env{Data: c.Data, Store: st}
	return &packs.Activator{Catalog: &packs.Catalog{Store: st}, Targets: packs.NewTargets(env),
		Secrets: &secret.Store{Store: st}, Tenant: c.Config.Tenant}, env, nil
}

// UploadPack checks the pack at path and stores it in the catalogue.
func (c *Client) UploadPack(ctx context.Context, path string) (PackRecord, error) {
	a, _, err := c.packs(ctx)
	if err != nil {
		return PackRecord{}, err
	}
	return a.Catalog.Upload(ctx, path)
}

// ListPacks returns the rows of pack list (of the packs named name, or
// all for "").
func (c *Client) ListPacks(ctx context.Context, name string) ([]PackListRow, error) {
	a, _, err := c.packs(ctx)
	if err != nil {
		return nil, err
	}
	return a.Catalog.List(ctx, name)
}

// RemovePack removes a pack version, or all of the pack's versions.
func (c *Client) RemovePack(ctx context.Context, name, version string) ([]PackRecord, error) {
	a, _, err := c.packs(ctx)
	if err != nil {
		return nil, err
	}
	return a.Catalog.Remove(ctx, name, version)
}

// ActivatePack asks the api-server to deploy a scope of a pack (req.Scope:
// common for activate, single_tenant, customer) and returns its rows.
func (c *Client) ActivatePack(ctx context.Context, req PackRequest) ([]PackRow, error) {
	return c.packRequest(ctx, api.SubjectPackActivate, req, "activate")
}

// DeactivatePack asks the api-server to take back what an activation or
// enablement created.
func (c *Client) DeactivatePack(ctx context.Context, req PackRequest) ([]PackRow, error) {
	return c.packRequest(ctx, api.SubjectPackDeactivate, req, "deactivate")
}

// packWait bounds the wait for the api-server's answer: its own bound
// and a margin.
const packWait = api.PackTimeout + api.PackUndoTimeout + 10*time.Second

func (c *Client) packRequest(ctx context.Context, subject string, req PackRequest, what string) ([]PackRow, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	msg, err := c.transaction(ctx, subject, data, packWait, transactionWords{verb: what, noun: "pack", after: "pack list shows the outcome"})
	if err != nil {
		return nil, err
	}
	var res api.PackResult
	if err := decode(msg.Data, &res); err != nil {
		return nil, err
	}
	return res.Rows, nil
}

// ComparePack compares an uploaded pack with what is deployed or with
// another uploaded pack.
func (c *Client) ComparePack(ctx context.Context, o PackCompareOptions) (pack.Report, error) {
	a, _, err := c.packs(ctx)
	if err != nil {
		return pack.Report{}, err
	}
	return a.Compare(ctx, o)
}

// WritePackReport writes a comparison's report to path as a .tar.gz
// (report.json, and with html report.html), whole or not at all; an
// existing file is refused.
func WritePackReport(path string, r pack.Report, html bool) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists already: give another --output", path)
	}
	return safefile.Write(path, func(w io.Writer) error { return pack.WriteReport(w, r, html) })
}

// CreatePack packs the tenant's current artifacts by cfg as
// NAME-VERSION.tar.gz in dir and returns its path; with upload it is
// stored in the catalogue too. A name and version the catalogue has, or
// a file there already, is refused before anything is written.
func (c *Client) CreatePack(ctx context.Context, name, version string, cfg PackArtifactConfig, dir string, upload bool) (string, error) {
	a, env, err := c.packs(ctx)
	if err != nil {
		return "", err
	}
	if _, err := a.Catalog.Get(ctx, name, version); err == nil {
		return "", fmt.Errorf("pack %s version %s is uploaded already: give another --name or --version", name, version)
	} else if !errors.Is(err, packs.ErrNotFound) {
		return "", err
	}
	path := filepath.Join(dir, name+"-"+version+".tar.gz")
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("%s exists already", path)
	}
	m, files, err := env.Create(ctx, name, version, cfg)
	if err != nil {
		return "", err
	}
	if err := safefile.Write(path, func(w io.Writer) error { return pack.Write(w, m, files) }); err != nil {
		return "", err
	}
	if upload {
		if _, err := a.Catalog.Upload(ctx, path); err != nil {
			return path, fmt.Errorf("wrote %s, but uploading it failed: %v", path, err)
		}
	}
	return path, nil
}
