// Package botsources keeps a tenant's bot sources: configured instances
// of its bot packages' config_template (fabric/infra/botpackages), their
// $secure values sealed as secrets (fabric/infra/secret) and opened only
// for a worker's call. It is apart from the catalog so that what reads
// packages alone (packs, the api-server) links no secret store.
package botsources

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
)

// Sources are the bot sources of a tenant: stored beside its catalog of
// bot packages, their secrets in its secret store.
type Sources struct {
	Catalog *botpackages.Catalog
	Secrets *secret.Store
}

func (s *Sources) now() time.Time {
	if s.Catalog.Now != nil {
		return s.Catalog.Now()
	}
	return time.Now()
}

var sourceNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+$`) })

// SecretName is the secret that holds the value of a source's $secure
// key when it was given as a value.
func SecretName(source, key string) string { return "bot-source." + source + "." + key }

// Put checks a source against its package's config_template (its
// keys known, the $mandatory ones given) and stores it; a $secure key
// given as a value is sealed as the secret SecretName(source, key) and
// the source keeps a reference to it.
func (s *Sources) Put(ctx context.Context, src api.BotSource) (api.BotSource, error) {
	if !sourceNameRe().MatchString(src.Name) {
		return src, fmt.Errorf("a source's name may hold letters, digits, '_', '-' and '.' only, not %q", src.Name)
	}
	rec, err := s.Catalog.Get(ctx, src.Package)
	if err != nil {
		return src, err
	}
	fsys, err := s.Catalog.Files(ctx, rec)
	if err != nil {
		return src, err
	}
	data, err := fs.ReadFile(fsys, botpkg.ManifestFile)
	if err != nil {
		return src, err
	}
	m, err := botpkg.ParseManifest(data)
	if err != nil {
		return src, err
	}
	t, err := botpkg.ParseTemplate(m.Extension.ConfigTemplate)
	if err != nil {
		return src, err
	}
	config := map[string]any{}
	for k, v := range src.Config {
		if !contains(t.Keys, k) {
			return src, fmt.Errorf("source %s: %s is not a key of bot package %s's configuration (keys: %s)", src.Name, k, rec.Name, strings.Join(t.Keys, ", "))
		}
		config[k] = v
	}
	for _, k := range t.Mandatory {
		if v, ok := config[k]; !ok || v == nil || v == "" {
			return src, fmt.Errorf("source %s: %s (%s) is mandatory", src.Name, k, label(t, k))
		}
	}
	for _, k := range t.Secure {
		v, ok := config[k]
		if !ok || v == nil || v == "" {
			continue
		}
		if len(secret.Refs(v)) > 0 {
			continue
		}
		name := SecretName(src.Name, k)
		if _, err := s.Secrets.Put(ctx, name, fmt.Sprintf("%s of bot source %s", label(t, k), src.Name), []byte(fmt.Sprint(v)), true); err != nil {
			return src, fmt.Errorf("source %s: sealing %s: %v", src.Name, k, err)
		}
		config[k] = map[string]any{secret.RefKey: name}
	}
	src.Config = config
	src.Package = rec.Name
	src.SavedTime = api.Timestamp(s.now())
	if err := s.Catalog.Store.Put(ctx, api.BotSourcesBucket, store.Key(src.Name), src, 0); err != nil {
		return src, err
	}
	return src, nil
}

func label(t *botpkg.Template, k string) string {
	if l := t.Labels[k]; l != "" {
		return l
	}
	return k
}

func contains(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

// Get returns a stored source.
func (s *Sources) Get(ctx context.Context, name string) (api.BotSource, error) {
	var src api.BotSource
	_, err := s.Catalog.Store.Get(ctx, api.BotSourcesBucket, store.Key(name), &src)
	if errors.Is(err, store.ErrNotFound) {
		return src, fmt.Errorf("no bot source named %q", name)
	}
	return src, err
}

// Delete deletes a stored source and the secrets Put sealed for it
// (bot-source.NAME.KEY); secrets it only referred to stay.
func (s *Sources) Delete(ctx context.Context, name string) (api.BotSource, error) {
	src, err := s.Get(ctx, name)
	if err != nil {
		return src, err
	}
	if err := s.Catalog.Store.Delete(ctx, api.BotSourcesBucket, store.Key(name)); err != nil {
		return src, err
	}
	for k, v := range src.Config {
		for _, ref := range secret.Refs(v) {
			if ref != SecretName(name, k) {
				continue
			}
			if err := s.Secrets.Delete(ctx, ref); err != nil && !errors.Is(err, secret.ErrNotFound) {
				return src, fmt.Errorf("source %s is deleted, but its secret %s is not: %v", name, ref, err)
			}
		}
	}
	return src, nil
}

// List returns the stored sources by name.
func (s *Sources) List(ctx context.Context) ([]api.BotSource, error) {
	all, err := store.ListOf[api.BotSource](ctx, s.Catalog.Store, api.BotSourcesBucket)
	if err != nil {
		return nil, err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all, nil
}

// Resolved is a source's configuration with its secrets opened: for the
// worker's call only, never to be shown.
func (s *Sources) Resolved(ctx context.Context, src api.BotSource) (map[string]any, error) {
	v, err := s.Secrets.Resolve(ctx, src.Config)
	if err != nil {
		return nil, fmt.Errorf("source %s: %v", src.Name, err)
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// Row is a source as list-sources shows it: its configuration by
// the template's labels, the $secure values as ********.
type Row struct {
	Name      string            `json:"name"`
	Package   string            `json:"package"`
	Config    map[string]string `json:"config"`
	SavedTime string            `json:"saved_time"`
}

// Rows returns the sources as list-sources shows them, by name.
func (s *Sources) Rows(ctx context.Context) ([]Row, error) {
	all, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	templates := map[string]*botpkg.Template{}
	rows := make([]Row, 0, len(all))
	for _, src := range all {
		t, ok := templates[src.Package]
		if !ok {
			if data, err := s.Catalog.Manifest(ctx, src.Package); err == nil {
				if m, err := botpkg.ParseManifest(data); err == nil {
					t, _ = botpkg.ParseTemplate(m.Extension.ConfigTemplate)
				}
			}
			templates[src.Package] = t
		}
		row := Row{Name: src.Name, Package: src.Package, Config: map[string]string{}, SavedTime: src.SavedTime}
		for k, v := range src.Config {
			shown, name := fmt.Sprint(v), k
			if t != nil {
				name = label(t, k)
				if contains(sortedCopy(t.Secure), k) {
					shown = "********"
				}
			}
			if len(secret.Refs(v)) > 0 {
				shown = "********"
			}
			row.Config[name] = shown
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
