// Package botpackages keeps a tenant's bot packages: a record a package
// name in KV (the newest version added) and the package's files as one
// .tar.gz in the object store. A package is checked by fabric/lib/botpkg
// (bots.yml, every module compiled, every bot defined) before it is
// stored, and is refused deletion while a pipeline or a deployment in
// force calls its bots.
package botpackages

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
)

// ErrNotFound is the error of a package the catalog does not have.
var ErrNotFound = errors.New("no such bot package")

// maxArchive bounds a package's archive.
const maxArchive = 64 << 20

// Catalog is a tenant's catalog of bot packages.
type Catalog struct {
	Store *store.Store
	// Now is the clock of the records' times (time.Now when nil).
	Now func() time.Time
	// Deployments names the enabled deployments that run one of the
	// pipelines given (artifact.DeploymentsRunning): the artifact
	// layer's, given by the caller so that the catalog links no artifact
	// kind. Delete refuses to remove a package some pipeline calls
	// without it.
	Deployments func(ctx context.Context, pipelines map[string]bool) ([]string, error)
}

func (c *Catalog) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func key(name string) string { return store.Key(name) }

// missing is the error of a package the catalog does not have; it is
// ErrNotFound.
type missing string

func (m missing) Error() string { return fmt.Sprintf("no bot package named %q is added", string(m)) }

func (m missing) Is(target error) bool { return target == ErrNotFound }

func notFound(name string) error { return missing(name) }

// Add checks the package of archive (a .tar.gz, see botpkg.Pack) and
// stores it. A package of a name the catalog has is replaced by a newer
// version; the same or an older version is refused unless overwrite.
func (c *Catalog) Add(ctx context.Context, archive []byte, overwrite bool) (api.BotPackageRecord, error) {
	if len(archive) > maxArchive {
		return api.BotPackageRecord{}, fmt.Errorf("the package archive is over the size limit of %d MB", maxArchive>>20)
	}
	fsys, err := botpkg.Unpack(bytes.NewReader(archive), botpkg.Limits{})
	if err != nil {
		return api.BotPackageRecord{}, err
	}
	p, err := botpkg.Load(ctx, fsys, botpkg.Limits{})
	if err != nil {
		return api.BotPackageRecord{}, err
	}
	x := p.Manifest.Extension
	old, rev, err := c.get(ctx, x.DefaultName)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return api.BotPackageRecord{}, err
	case !overwrite && botpkg.CompareVersions(x.Version, old.Version) <= 0:
		return api.BotPackageRecord{}, fmt.Errorf("bot package %s version %s is added already; version %s is not newer (--overwrite replaces it)", old.Name, old.Version, x.Version)
	case old.Namespace != x.Namespace:
		return api.BotPackageRecord{}, fmt.Errorf("bot package %s has the namespace %s, not %s: delete it first", old.Name, old.Namespace, x.Namespace)
	}
	if err := c.namespaceFree(ctx, x.Namespace, x.DefaultName); err != nil {
		return api.BotPackageRecord{}, err
	}
	rec := api.BotPackageRecord{Name: x.DefaultName, Namespace: x.Namespace, Version: x.Version, Description: x.Description,
		Publisher: x.Publisher, Blob: api.BotPackagesFolder + x.DefaultName + "-" + x.Version + "-" + newID() + ".tar.gz",
		SavedTime: api.Timestamp(c.now())}
	for _, b := range p.Manifest.Bots {
		rec.Bots = append(rec.Bots, p.Tag(b.Name))
	}
	if rec.Size, err = c.Store.PutBlob(ctx, rec.Blob, bytes.NewReader(archive)); err != nil {
		return api.BotPackageRecord{}, fmt.Errorf("storing the package: %v", err)
	}
	if rev == 0 {
		err = c.Store.Create(ctx, api.BotPackagesBucket, key(rec.Name), rec)
	} else {
		err = c.Store.Put(ctx, api.BotPackagesBucket, key(rec.Name), rec, rev)
	}
	if err != nil {
		_ = c.Store.DeleteBlob(context.WithoutCancel(ctx), rec.Blob)
		if errors.Is(err, store.ErrExists) {
			return api.BotPackageRecord{}, fmt.Errorf("bot package %s was added meanwhile: try again", rec.Name)
		}
		return api.BotPackageRecord{}, err
	}
	if rev != 0 {
		c.dropBlobs(ctx, old)
	}
	return rec, nil
}

// namespaceFree refuses a namespace another package has.
func (c *Catalog) namespaceFree(ctx context.Context, ns, name string) error {
	all, err := c.List(ctx)
	if err != nil {
		return err
	}
	for _, r := range all {
		if r.Namespace == ns && r.Name != name {
			return fmt.Errorf("the namespace %s is bot package %s's", ns, r.Name)
		}
	}
	return nil
}

func (c *Catalog) dropBlobs(ctx context.Context, r api.BotPackageRecord) {
	ctx = context.WithoutCancel(ctx)
	for _, b := range []string{r.Blob, r.Dist} {
		if b != "" {
			_ = c.Store.DeleteBlob(ctx, b)
		}
	}
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (c *Catalog) get(ctx context.Context, name string) (api.BotPackageRecord, uint64, error) {
	var rec api.BotPackageRecord
	rev, err := c.Store.Get(ctx, api.BotPackagesBucket, key(name), &rec)
	if errors.Is(err, store.ErrNotFound) {
		return rec, 0, notFound(name)
	}
	return rec, rev, err
}

// Get returns the record of a package.
func (c *Catalog) Get(ctx context.Context, name string) (api.BotPackageRecord, error) {
	rec, _, err := c.get(ctx, name)
	return rec, err
}

// List returns the catalog's records by name.
func (c *Catalog) List(ctx context.Context) ([]api.BotPackageRecord, error) {
	all, err := store.ListOf[api.BotPackageRecord](ctx, c.Store, api.BotPackagesBucket)
	if err != nil {
		return nil, err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all, nil
}

// Files returns the files of a package.
func (c *Catalog) Files(ctx context.Context, rec api.BotPackageRecord) (fs.FS, error) {
	r, _, err := c.Store.GetBlob(ctx, rec.Blob)
	if err != nil {
		return nil, fmt.Errorf("reading bot package %s: %v", rec.Name, err)
	}
	defer r.Close()
	return botpkg.Unpack(io.LimitReader(r, maxArchive), botpkg.Limits{})
}

// Manifest returns a package's bots.yml as it was added.
func (c *Catalog) Manifest(ctx context.Context, name string) ([]byte, error) {
	rec, err := c.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	fsys, err := c.Files(ctx, rec)
	if err != nil {
		return nil, err
	}
	return readManifest(fsys)
}

func readManifest(fsys fs.FS) ([]byte, error) { return fs.ReadFile(fsys, botpkg.ManifestFile) }

// SetDist stores a package's dist archive (bot-package build) with the
// record of its version.
func (c *Catalog) SetDist(ctx context.Context, name, version string, dist []byte) (api.BotPackageRecord, error) {
	rec, rev, err := c.get(ctx, name)
	if err != nil {
		return rec, err
	}
	if rec.Version != version {
		return rec, fmt.Errorf("bot package %s is version %s in the catalog, not %s: add this version first", name, rec.Version, version)
	}
	old := rec.Dist
	rec.Dist = api.BotPackagesFolder + name + "-" + version + "-" + newID() + "-dist.tar.gz"
	if _, err := c.Store.PutBlob(ctx, rec.Dist, bytes.NewReader(dist)); err != nil {
		return rec, err
	}
	if err := c.Store.Put(ctx, api.BotPackagesBucket, key(name), rec, rev); err != nil {
		_ = c.Store.DeleteBlob(context.WithoutCancel(ctx), rec.Dist)
		return rec, err
	}
	if old != "" {
		_ = c.Store.DeleteBlob(context.WithoutCancel(ctx), old)
	}
	return rec, nil
}

// Delete removes a package (only at version, when not ""), refused while
// a pipeline or an enabled deployment calls its bots: the error names
// them.
func (c *Catalog) Delete(ctx context.Context, name, version string) (api.BotPackageRecord, error) {
	rec, err := c.Get(ctx, name)
	if err != nil {
		return rec, err
	}
	if version != "" && version != rec.Version {
		return rec, fmt.Errorf("bot package %s is version %s, not %s", name, rec.Version, version)
	}
	users, err := c.Users(ctx, rec.Namespace)
	if err != nil {
		return rec, err
	}
	if len(users) > 0 {
		return rec, fmt.Errorf("bot package %s is in use by %s: delete or change those first", name, strings.Join(users, ", "))
	}
	if err := c.Store.Delete(ctx, api.BotPackagesBucket, key(name)); err != nil {
		return rec, err
	}
	c.dropBlobs(ctx, rec)
	return rec, nil
}

// Users names the pipelines (any version) whose steps call a bot of the
// namespace, and the enabled deployments that run them.
func (c *Catalog) Users(ctx context.Context, ns string) ([]string, error) {
	pipes, err := store.ListOf[api.Pipeline](ctx, c.Store, api.PipelinesBucket)
	if err != nil {
		return nil, err
	}
	using := map[string]bool{}
	for _, p := range pipes {
		for _, s := range p.Data.Sequence {
			if len(s.Tag) > 1 && strings.HasPrefix(s.Tag[1:], ns+":") {
				using[p.Name] = true
			}
		}
	}
	var out []string
	for name := range using {
		out = append(out, "pipeline "+name)
	}
	sort.Strings(out)
	if len(using) == 0 {
		return out, nil
	}
	if c.Deployments == nil {
		return nil, errors.New("the catalog cannot tell which deployments run those pipelines")
	}
	named, err := c.Deployments(ctx, using)
	if err != nil {
		return nil, err
	}
	return append(out, named...), nil
}
