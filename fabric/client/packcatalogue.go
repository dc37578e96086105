package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/packs"
	"github.com/fabricops/fabric/fabric/lib/pack"
)

// PackCleanupRow is what the cleanup of the system-bundle packs did with
// one of them.
type PackCleanupRow struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Action is deleted (would delete, in a test), skipped (activated)
	// or skipped (not found).
	Action string `json:"action"`
}

// PackCleanup is the report of the cleanup of the system-bundle packs
// (SPEC 9.1 post-step 4). In a test run Deleted counts what would be
// deleted, so that its counts are the real run's.
type PackCleanup struct {
	Test bool `json:"test"`
	// Total is the number of packs in the catalogue, Processed the
	// system-bundle packs among them.
	Total            int              `json:"total"`
	Processed        int              `json:"processed"`
	Marked           int              `json:"marked"`
	Deleted          int              `json:"deleted"`
	SkippedActivated int              `json:"skipped_activated"`
	SkippedNotFound  int              `json:"skipped_not_found"`
	Packs            []PackCleanupRow `json:"packs"`
}

// CleanupSystemPacks deletes the system-bundle packs (pack.IsSystem: a
// manifest published by "system") that are not activated: no
// activation, partial or whole, and no single-tenant or customer
// enablement. Each is marked first, then deleted; one gone by then is
// skipped (not found). test deletes nothing and counts what it would.
func (c *Client) CleanupSystemPacks(ctx context.Context, test bool) (PackCleanup, error) {
	r := PackCleanup{Test: test, Packs: []PackCleanupRow{}}
	a, _, err := c.packs(ctx)
	if err != nil {
		return r, err
	}
	rows, err := a.Catalog.List(ctx, "")
	if err != nil {
		return r, err
	}
	r.Total = len(rows)
	var marked []PackListRow
	for _, row := range rows {
		if !pack.IsSystem(row.Publisher) {
			continue
		}
		r.Processed++
		if row.State != "uploaded" || row.SingleTenant || len(row.Customers) > 0 {
			r.SkippedActivated++
			r.Packs = append(r.Packs, PackCleanupRow{row.Name, row.Version, "skipped (activated)"})
			continue
		}
		r.Marked++
		marked = append(marked, row)
	}
	for _, row := range marked {
		action := "deleted"
		if test {
			action = "would delete"
			_, err = a.Catalog.Get(ctx, row.Name, row.Version)
		} else {
			_, err = a.Catalog.Remove(ctx, row.Name, row.Version)
		}
		switch {
		case errors.Is(err, packs.ErrNotFound):
			r.SkippedNotFound++
			action = "skipped (not found)"
		case err != nil:
			return r, fmt.Errorf("pack %s version %s: %v", row.Name, row.Version, err)
		default:
			r.Deleted++
		}
		r.Packs = append(r.Packs, PackCleanupRow{row.Name, row.Version, action})
	}
	return r, nil
}

// CatalogueRow is what the installation of a catalogue did with one of
// its packs.
type CatalogueRow struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Base    bool   `json:"base"`
	File    string `json:"file"`
	// Upload is uploaded or uploaded already.
	Upload string `json:"upload"`
	// Activation is activated, activated already, not deployed (a pack
	// that is not base and of which no version is activated), or
	// failed: the reason.
	Activation string `json:"activation"`
}

// InstallCatalogue uploads every pack (*.tar.gz) of dir, then activates
// the base packs (pack.IsBase) first and then the others that are
// deployed: a version of the same name is activated, or all is set. The
// fabric refuses to activate a version while another is: with replace,
// the other is deactivated first.
// inputs holds each pack's deploy variables by pack name. A pack that
// fails to activate is reported in its row ("failed: ...") and the
// others go on.
func (c *Client) InstallCatalogue(ctx context.Context, dir string, all, replace bool, inputs map[string]map[string]any) ([]CatalogueRow, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.tar.gz"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s is not a directory", dir)
		}
		return nil, fmt.Errorf("%s holds no pack (*.tar.gz)", dir)
	}
	var rows []CatalogueRow
	for _, f := range files {
		p, err := pack.ReadFile(f, pack.DefaultLimits)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Base(f), err)
		}
		rows = append(rows, CatalogueRow{Name: p.Manifest.Name, Version: p.Manifest.Version, Base: pack.IsBase(p.Manifest.Name), File: f})
	}
	pack.CatalogueOrder(rows, func(r CatalogueRow) string { return r.Name }, func(r CatalogueRow) string { return r.Version })
	a, _, err := c.packs(ctx)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		r := &rows[i]
		if _, err := a.Catalog.Get(ctx, r.Name, r.Version); err == nil {
			r.Upload = "uploaded already"
		} else if !errors.Is(err, packs.ErrNotFound) {
			return rows, err
		} else if _, err := a.Catalog.Upload(ctx, r.File); err != nil {
			return rows, fmt.Errorf("uploading %s: %v", filepath.Base(r.File), err)
		} else {
			r.Upload = "uploaded"
		}
		r.File = filepath.Base(r.File)
	}
	for i := range rows {
		r := &rows[i]
		list, err := a.Catalog.List(ctx, r.Name)
		if err != nil {
			return rows, err
		}
		deployed, other := false, ""
		for _, l := range list {
			if l.State != "uploaded" && l.Version == r.Version {
				r.Activation = "activated already"
			}
			deployed = deployed || l.State == api.PackActivated
			if l.State == api.PackActivated && l.Version != r.Version {
				other = l.Version
			}
		}
		switch {
		case r.Activation != "":
			continue
		case !r.Base && !deployed && !all:
			r.Activation = "not deployed"
			continue
		}
		done := "activated"
		if replace && other != "" {
			if _, err := c.DeactivatePack(ctx, PackRequest{Name: r.Name, Version: other, Scope: pack.ScopeCommon}); err != nil {
				r.Activation = "failed: deactivating version " + other + ": " + strings.Join(strings.Fields(err.Error()), " ")
				continue
			}
			done = "activated (replaced " + other + ")"
		}
		_, err = c.ActivatePack(ctx, PackRequest{Name: r.Name, Version: r.Version, Scope: pack.ScopeCommon, Inputs: inputs[r.Name]})
		if err != nil {
			r.Activation = "failed: " + strings.Join(strings.Fields(err.Error()), " ")
			continue
		}
		r.Activation = done
	}
	return rows, nil
}
