// Package packs keeps a tenant's packs: the catalogue of uploaded packs
// (records in KV, archives in the object store), the records of what
// each activation created, the transaction that activates a scope of a
// pack or takes it back, and the comparison of a pack with what is
// deployed or with another pack. The pack format is fabric/lib/pack's.
package packs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/pack"
)

// ErrNotFound is the error of a pack (name and version) the catalogue
// does not have.
var ErrNotFound = errors.New("no such pack")

// Catalog is a tenant's catalogue of packs.
type Catalog struct {
	Store *store.Store
	// Now is the clock of the records' times (time.Now when nil).
	Now func() time.Time
}

func (c *Catalog) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// key is the catalogue key of a pack version.
func key(name, version string) string { return store.Key(name + "@" + version) }

// missing is the error of a pack version, or a pack, the catalogue does
// not have; it is ErrNotFound.
type missing struct{ name, version string }

func (m missing) Error() string {
	if m.version == "" {
		return fmt.Sprintf("no pack named %q is uploaded", m.name)
	}
	return fmt.Sprintf("pack %s version %s is not uploaded", m.name, m.version)
}

func (m missing) Is(target error) bool { return target == ErrNotFound }

// notFound is the error of a missing pack version, naming it.
func notFound(name, version string) error { return missing{name, version} }

// Upload checks the pack at path (the whole pack, every file rendered
// with its defaults would not do: it checks the manifest, the files and
// their placeholders) and stores it. A pack of a name and version the
// catalogue has is refused: exactly one of two uploads racing wins.
func (c *Catalog) Upload(ctx context.Context, path string) (api.PackRecord, error) {
	p, err := pack.ReadFile(path, pack.DefaultLimits)
	if err != nil {
		return api.PackRecord{}, err
	}
	m := p.Manifest
	if _, err := c.Get(ctx, m.Name, m.Version); err == nil {
		return api.PackRecord{}, duplicate(m.Name, m.Version)
	} else if !errors.Is(err, ErrNotFound) {
		return api.PackRecord{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return api.PackRecord{}, err
	}
	defer f.Close()
	id := newID()
	rec := api.PackRecord{ID: id, Name: m.Name, Version: m.Version, Description: m.Description, Publisher: m.Publisher,
		Blob: api.PackBlobPrefix + id + ".tar.gz", Artifacts: map[string]int{}, UploadedTime: api.Timestamp(c.now())}
	for _, a := range m.Artifacts {
		rec.Artifacts[a.Scope]++
	}
	rec.Size, err = c.Store.PutBlob(ctx, rec.Blob, io.LimitReader(f, pack.DefaultLimits.MaxSize+1))
	if err != nil {
		return api.PackRecord{}, fmt.Errorf("storing the pack: %v", err)
	}
	err = c.Store.Create(ctx, api.PacksBucket, key(m.Name, m.Version), rec)
	if err != nil {
		_ = c.Store.DeleteBlob(context.WithoutCancel(ctx), rec.Blob)
		if errors.Is(err, store.ErrExists) {
			return api.PackRecord{}, duplicate(m.Name, m.Version)
		}
		return api.PackRecord{}, err
	}
	return rec, nil
}

func duplicate(name, version string) error {
	return fmt.Errorf("pack %s version %s is uploaded already (pack remove --name %s --version %s removes it)", name, version, name, version)
}

// newID returns a new pack id.
func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Get returns the record of a pack version.
func (c *Catalog) Get(ctx context.Context, name, version string) (api.PackRecord, error) {
	var rec api.PackRecord
	_, err := c.Store.Get(ctx, api.PacksBucket, key(name, version), &rec)
	if errors.Is(err, store.ErrNotFound) {
		return rec, notFound(name, version)
	}
	return rec, err
}

// Open reads and checks an uploaded pack.
func (c *Catalog) Open(ctx context.Context, rec api.PackRecord) (*pack.Pack, error) {
	r, _, err := c.Store.GetBlob(ctx, rec.Blob)
	if err != nil {
		return nil, fmt.Errorf("reading pack %s version %s: %v", rec.Name, rec.Version, err)
	}
	defer r.Close()
	return pack.Read(r, rec.Name+"-"+rec.Version+".tar.gz", pack.DefaultLimits)
}

// Records returns the catalogue, by name and then version (numerically),
// only the packs named name unless it is "".
func (c *Catalog) Records(ctx context.Context, name string) ([]api.PackRecord, error) {
	all, err := store.ListOf[api.PackRecord](ctx, c.Store, api.PacksBucket)
	if err != nil {
		return nil, err
	}
	var out []api.PackRecord
	for _, r := range all {
		if name == "" || r.Name == name {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return pack.CompareVersions(out[i].Version, out[j].Version) < 0
	})
	return out, nil
}

// Activations returns the activation records, of the packs named name
// unless it is "".
func (c *Catalog) Activations(ctx context.Context, name string) ([]api.PackActivation, error) {
	all, err := store.ListOf[api.PackActivation](ctx, c.Store, api.PackActivationsBucket)
	if err != nil {
		return nil, err
	}
	var out []api.PackActivation
	for _, a := range all {
		if name == "" || a.Name == name {
			out = append(out, a)
		}
	}
	return out, nil
}

// Row is a row of pack list: the record's fields and the pack's state.
type Row struct {
	api.PackRecord
	// State is "uploaded", "ACTIVATED" or "partly activated" (an
	// activation that did not finish).
	State string `json:"state"`
	// SingleTenant is true while single-tenant use is enabled.
	SingleTenant bool `json:"single_tenant_enabled"`
	// Customers are the customer tags enabled.
	Customers []string `json:"customers_enabled"`
}

// List returns the rows of pack list.
func (c *Catalog) List(ctx context.Context, name string) ([]Row, error) {
	recs, err := c.Records(ctx, name)
	if err != nil {
		return nil, err
	}
	acts, err := c.Activations(ctx, name)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(recs))
	for _, r := range recs {
		row := Row{PackRecord: r, State: "uploaded", Customers: []string{}}
		for _, a := range acts {
			if a.Name != r.Name || a.Version != r.Version {
				continue
			}
			switch a.Scope {
			case pack.ScopeCommon:
				row.State = api.PackActivated
				if a.State != api.PackActivated {
					row.State = "partly activated"
				}
			case pack.ScopeSingleTenant:
				row.SingleTenant = true
			case pack.ScopeCustomer:
				row.Customers = append(row.Customers, a.CustomerTag)
			}
		}
		sort.Strings(row.Customers)
		rows = append(rows, row)
	}
	return rows, nil
}

// Remove removes a pack version, or every version of the pack (version
// ""), and returns what it removed. A version with an activation or an
// enablement is refused (deactivate it first), before anything is
// removed.
func (c *Catalog) Remove(ctx context.Context, name, version string) ([]api.PackRecord, error) {
	var recs []api.PackRecord
	if version != "" {
		rec, err := c.Get(ctx, name, version)
		if err != nil {
			return nil, err
		}
		recs = []api.PackRecord{rec}
	} else {
		var err error
		if recs, err = c.Records(ctx, name); err != nil {
			return nil, err
		}
		if len(recs) == 0 {
			return nil, notFound(name, "")
		}
	}
	acts, err := c.Activations(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		for _, a := range acts {
			if a.Version == r.Version {
				return nil, fmt.Errorf("pack %s version %s is %s: deactivate it first (%s)", name, r.Version, scopeState(a), undoCommand(a))
			}
		}
	}
	for _, r := range recs {
		if err := c.Store.Delete(ctx, api.PacksBucket, key(r.Name, r.Version)); err != nil {
			return nil, err
		}
		if err := c.Store.DeleteBlob(ctx, r.Blob); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	return recs, nil
}

// scopeState says what an activation record makes of its pack.
func scopeState(a api.PackActivation) string {
	switch a.Scope {
	case pack.ScopeSingleTenant:
		return "enabled for single-tenant use"
	case pack.ScopeCustomer:
		return "enabled for customer " + a.CustomerTag
	}
	if a.State != api.PackActivated {
		return "partly activated"
	}
	return "activated"
}

// undoCommand is the command that takes an activation record's
// artifacts back.
func undoCommand(a api.PackActivation) string {
	switch a.Scope {
	case pack.ScopeSingleTenant:
		return fmt.Sprintf("pack disable-single-tenant --name %s --version %s", a.Name, a.Version)
	case pack.ScopeCustomer:
		return fmt.Sprintf("pack disable-customer --name %s --version %s --customer-tag %s", a.Name, a.Version, a.CustomerTag)
	}
	cmd := fmt.Sprintf("pack deactivate --name %s --version %s", a.Name, a.Version)
	if a.State != api.PackActivated {
		cmd += " --force"
	}
	return cmd
}
