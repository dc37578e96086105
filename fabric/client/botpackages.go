package client

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/infra/botsources"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
)

// BotPackageRecord is api.BotPackageRecord.
type BotPackageRecord = api.BotPackageRecord

// maxBotPackageFile bounds a package's .tar.gz read from disk.
const maxBotPackageFile = 64 << 20

func (c *Client) botPackages(ctx context.Context) (*botpackages.Catalog, error) {
	st, err := c.Store(ctx)
	if err != nil {
		return nil, err
	}
	return &botpackages.Catalog{Store: st, Deployments: func(ctx context.Context, pipelines map[string]bool) ([]string, error) {
		return artifact.DeploymentsRunning(ctx, st, pipelines)
	}}, nil
}

// BotPackageArchive returns the .tar.gz of the package at path: a
// directory (packed) or a .tar.gz file.
func BotPackageArchive(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return botpkg.Pack(os.DirFS(path), botpkg.Limits{})
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBotPackageFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxBotPackageFile {
		return nil, fmt.Errorf("%s is over the size limit of %d MB", path, maxBotPackageFile>>20)
	}
	return data, nil
}

// AddBotPackage checks the package at path (a directory or its .tar.gz)
// and stores it in the catalog (see botpackages.Catalog.Add).
func (c *Client) AddBotPackage(ctx context.Context, path string, overwrite bool) (BotPackageRecord, error) {
	data, err := BotPackageArchive(path)
	if err != nil {
		return BotPackageRecord{}, err
	}
	cat, err := c.botPackages(ctx)
	if err != nil {
		return BotPackageRecord{}, err
	}
	return cat.Add(ctx, data, overwrite)
}

// ListBotPackages returns the catalog's packages by name.
func (c *Client) ListBotPackages(ctx context.Context) ([]BotPackageRecord, error) {
	cat, err := c.botPackages(ctx)
	if err != nil {
		return nil, err
	}
	return cat.List(ctx)
}

// BotPackageManifest returns a package's bots.yml.
func (c *Client) BotPackageManifest(ctx context.Context, name string) ([]byte, error) {
	cat, err := c.botPackages(ctx)
	if err != nil {
		return nil, err
	}
	return cat.Manifest(ctx, name)
}

// DeleteBotPackage removes a package (at version, when not ""), refused
// while a pipeline or an enabled deployment uses it.
func (c *Client) DeleteBotPackage(ctx context.Context, name, version string) (BotPackageRecord, error) {
	cat, err := c.botPackages(ctx)
	if err != nil {
		return BotPackageRecord{}, err
	}
	return cat.Delete(ctx, name, version)
}

// SetBotPackageDist records a package version's dist archive.
func (c *Client) SetBotPackageDist(ctx context.Context, name, version string, dist []byte) (BotPackageRecord, error) {
	cat, err := c.botPackages(ctx)
	if err != nil {
		return BotPackageRecord{}, err
	}
	return cat.SetDist(ctx, name, version, dist)
}

// BotSourceRow is botsources.Row.
type BotSourceRow = botsources.Row

// botSources returns the tenant's bot sources.
func (c *Client) botSources(ctx context.Context) (*botsources.Sources, error) {
	cat, err := c.botPackages(ctx)
	if err != nil {
		return nil, err
	}
	return &botsources.Sources{Catalog: cat, Secrets: &secret.Store{Store: cat.Store}}, nil
}

// AddBotSource checks a source against its package's config_template and
// stores it, its $secure values sealed as secrets.
func (c *Client) AddBotSource(ctx context.Context, src api.BotSource) (api.BotSource, error) {
	s, err := c.botSources(ctx)
	if err != nil {
		return api.BotSource{}, err
	}
	return s.Put(ctx, src)
}

// DeleteBotSource deletes a bot source and the secrets sealed for it.
func (c *Client) DeleteBotSource(ctx context.Context, name string) (api.BotSource, error) {
	s, err := c.botSources(ctx)
	if err != nil {
		return api.BotSource{}, err
	}
	return s.Delete(ctx, name)
}

// ListBotSources returns the sources as list-sources shows them.
func (c *Client) ListBotSources(ctx context.Context) ([]BotSourceRow, error) {
	s, err := c.botSources(ctx)
	if err != nil {
		return nil, err
	}
	return s.Rows(ctx)
}
