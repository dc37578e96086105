package botpackages

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
)

var sourceNameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// SecretName is the secret that holds the value of a source's $secure
// key when it was given as a value.
func SecretName(source, key string) string { return "bot-source." + source + "." + key }

// PutSource checks a source against its package's config_template (its
// keys known, the $mandatory ones given) and stores it; a $secure key
// given as a value is sealed as the secret SecretName(source, key) and
// the source keeps a reference to it.
func (c *Catalog) PutSource(ctx context.Context, secrets *secret.Store, src api.BotSource) (api.BotSource, error) {
	if !sourceNameRe.MatchString(src.Name) {
		return src, fmt.Errorf("a source's name may hold letters, digits, '_', '-' and '.' only, not %q", src.Name)
	}
	rec, err := c.Get(ctx, src.Package)
	if err != nil {
		return src, err
	}
	fsys, err := c.Files(ctx, rec)
	if err != nil {
		return src, err
	}
	data, err := readManifest(fsys)
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
		if _, err := secrets.Put(ctx, name, fmt.Sprintf("%s of bot source %s", label(t, k), src.Name), []byte(fmt.Sprint(v)), true); err != nil {
			return src, fmt.Errorf("source %s: sealing %s: %v", src.Name, k, err)
		}
		config[k] = map[string]any{secret.RefKey: name}
	}
	src.Config = config
	src.Package = rec.Name
	src.SavedTime = api.Timestamp(c.now())
	if err := c.Store.Put(ctx, api.BotSourcesBucket, key(src.Name), src, 0); err != nil {
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

// Source returns a stored source.
func (c *Catalog) Source(ctx context.Context, name string) (api.BotSource, error) {
	var src api.BotSource
	_, err := c.Store.Get(ctx, api.BotSourcesBucket, key(name), &src)
	if errors.Is(err, store.ErrNotFound) {
		return src, fmt.Errorf("no bot source named %q", name)
	}
	return src, err
}

// DeleteSource deletes a stored source and the secrets PutSource sealed
// for it (bot-source.NAME.KEY); secrets it only referred to stay.
func (c *Catalog) DeleteSource(ctx context.Context, secrets *secret.Store, name string) (api.BotSource, error) {
	src, err := c.Source(ctx, name)
	if err != nil {
		return src, err
	}
	if err := c.Store.Delete(ctx, api.BotSourcesBucket, key(name)); err != nil {
		return src, err
	}
	for k, v := range src.Config {
		for _, ref := range secret.Refs(v) {
			if ref != SecretName(name, k) {
				continue
			}
			if err := secrets.Delete(ctx, ref); err != nil && !errors.Is(err, secret.ErrNotFound) {
				return src, fmt.Errorf("source %s is deleted, but its secret %s is not: %v", name, ref, err)
			}
		}
	}
	return src, nil
}

// Sources returns the stored sources by name.
func (c *Catalog) Sources(ctx context.Context) ([]api.BotSource, error) {
	all, err := store.ListOf[api.BotSource](ctx, c.Store, api.BotSourcesBucket)
	if err != nil {
		return nil, err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all, nil
}

// ResolvedConfig is a source's configuration with its secrets opened:
// for the worker's call only, never to be shown.
func (c *Catalog) ResolvedConfig(ctx context.Context, secrets *secret.Store, src api.BotSource) (map[string]any, error) {
	v, err := secrets.Resolve(ctx, src.Config)
	if err != nil {
		return nil, fmt.Errorf("source %s: %v", src.Name, err)
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// SourceRow is a source as list-sources shows it: its configuration by
// the template's labels, the $secure values as ********.
type SourceRow struct {
	Name      string            `json:"name"`
	Package   string            `json:"package"`
	Config    map[string]string `json:"config"`
	SavedTime string            `json:"saved_time"`
}

// SourceRows returns the sources as list-sources shows them, by name.
func (c *Catalog) SourceRows(ctx context.Context) ([]SourceRow, error) {
	all, err := c.Sources(ctx)
	if err != nil {
		return nil, err
	}
	templates := map[string]*botpkg.Template{}
	rows := make([]SourceRow, 0, len(all))
	for _, src := range all {
		t, ok := templates[src.Package]
		if !ok {
			if data, err := c.Manifest(ctx, src.Package); err == nil {
				if m, err := botpkg.ParseManifest(data); err == nil {
					t, _ = botpkg.ParseTemplate(m.Extension.ConfigTemplate)
				}
			}
			templates[src.Package] = t
		}
		row := SourceRow{Name: src.Name, Package: src.Package, Config: map[string]string{}, SavedTime: src.SavedTime}
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
