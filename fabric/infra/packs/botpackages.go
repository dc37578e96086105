package packs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
	"github.com/fabricops/fabric/fabric/lib/pack"
)

// botPackages is the bot package target: a pack's bot package folder
// (rendered as its .tar.gz) added to the tenant's catalog as
// 'bot-package add' adds one, checked and compiled first. It is removed
// only while it is still what the activation added: a package a user
// replaced since (bot-package add of a newer version) stays.
type botPackages struct{ c *botpackages.Catalog }

func (t *botPackages) Exists(ctx context.Context, name string) (bool, error) {
	_, err := t.c.Get(ctx, name)
	if errors.Is(err, botpackages.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Prepare loads the package as the catalog's Add does (bots.yml checked,
// every module compiled, every bot defined), and checks that its
// default_name is the manifest's name and that no other package of the
// tenant has its namespace.
func (t *botPackages) Prepare(ctx context.Context, r pack.Rendered, _ Pending) (Prepared, error) {
	fsys, err := botpkg.Unpack(bytes.NewReader(r.Data), botpkg.Limits{})
	if err != nil {
		return Prepared{}, err
	}
	p, err := botpkg.Load(ctx, fsys, botpkg.Limits{})
	if err != nil {
		return Prepared{}, err
	}
	x := p.Manifest.Extension
	if x.DefaultName != r.Name {
		return Prepared{}, fmt.Errorf("its default_name is %q, the manifest names it %q", x.DefaultName, r.Name)
	}
	all, err := t.c.List(ctx)
	if err != nil {
		return Prepared{}, err
	}
	for _, rec := range all {
		if rec.Namespace == x.Namespace && rec.Name != r.Name {
			return Prepared{}, fmt.Errorf("its namespace %s is bot package %s's", x.Namespace, rec.Name)
		}
	}
	files, err := pack.FolderFiles(r.Data)
	if err != nil {
		return Prepared{}, err
	}
	return Prepared{Rendered: r, Checksum: pack.FolderChecksum(files)}, nil
}

func (t *botPackages) Write(ctx context.Context, p Prepared) (api.PackCreated, error) {
	name := p.Rendered.Name
	// The catalog replaces an older version of a name: one added since
	// the activation checked is not replaced.
	if exists, err := t.Exists(ctx, name); err != nil {
		return api.PackCreated{}, err
	} else if exists {
		return api.PackCreated{}, fmt.Errorf("bot package %s was added meanwhile", name)
	}
	if _, err := t.c.Add(ctx, p.Rendered.Data, false); err != nil {
		return api.PackCreated{}, err
	}
	return api.PackCreated{Type: pack.TypeBotPackage, Name: name, Checksum: p.Checksum}, nil
}

// Remove deletes the package if it is still what the activation added
// (its files' checksum); the catalog refuses while a pipeline or an
// enabled deployment calls its bots, naming them.
func (t *botPackages) Remove(ctx context.Context, c api.PackCreated) error {
	item, found, err := t.Deployed(ctx, c.Name)
	if err != nil || !found || item.Checksum != c.Checksum {
		return err // gone, or replaced since: left as it is
	}
	_, err = t.c.Delete(ctx, c.Name, item.Version)
	if errors.Is(err, botpackages.ErrNotFound) {
		return nil
	}
	return err
}

func (t *botPackages) Deployed(ctx context.Context, name string) (pack.Item, bool, error) {
	rec, err := t.c.Get(ctx, name)
	if errors.Is(err, botpackages.ErrNotFound) {
		return pack.Item{}, false, nil
	}
	if err != nil {
		return pack.Item{}, false, err
	}
	files, err := botPackageFiles(ctx, t.c, rec)
	if err != nil {
		return pack.Item{}, false, err
	}
	return pack.Item{Type: pack.TypeBotPackage, Name: name, Version: rec.Version, Checksum: pack.FolderChecksum(files), Text: pack.FolderText(files)}, true, nil
}

// botPackageFiles returns the files of a package of the catalog by path
// (hidden ones left out, as a pack leaves them out).
func botPackageFiles(ctx context.Context, c *botpackages.Catalog, rec api.BotPackageRecord) (map[string][]byte, error) {
	fsys, err := c.Files(ctx, rec)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, name)
		files[name] = data
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading bot package %s: %v", rec.Name, err)
	}
	return files, nil
}

// createBotPackages packs the tenant's bot packages, each as the folder
// bot_packages/NAME of its files.
func (e Env) createBotPackages(ctx context.Context, take func(string) bool, add func(typ, name, ext string, data []byte), addFile func(path string, data []byte)) error {
	c := &botpackages.Catalog{Store: e.Store}
	recs, err := c.List(ctx)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if !take(rec.Name) {
			continue
		}
		files, err := botPackageFiles(ctx, c, rec)
		if err != nil {
			return err
		}
		dir := pack.TypeBotPackage + "s/" + pack.FileName(rec.Name)
		for p, data := range files {
			addFile(dir+"/"+p, data)
		}
		add(pack.TypeBotPackage, rec.Name, "", nil)
	}
	return nil
}
