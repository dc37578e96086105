// Package backup writes a tenant's artifacts to a directory, one file per
// artifact under a folder per kind (SPEC 2.16), and compares two such
// directories. A backup is written beside its destination and renamed
// into place, so a failed one leaves nothing half written.
package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/pack"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"github.com/nats-io/nats.go/jetstream"
)

// Kind is a kind of artifact a backup holds.
type Kind struct {
	// Code is the kind's short name in diff --opts ("d", "dg", ...).
	Code string
	// Dir is the kind's folder in a backup.
	Dir string
	// Title names the kind in the counts.
	Title string
	// collect returns the kind's artifacts in the tenant.
	collect func(ctx context.Context, s *Source) ([]Item, error)
}

// Item is an artifact in a backup: its file's name (without extension)
// and its document.
type Item struct {
	Name string
	Doc  *artifact.Doc
}

// Source is the tenant a backup reads (and a setup writes).
type Source struct {
	Repo *artifact.Repo
	Data *tenant.Data
	// JS is the tenant's JetStream, where its persistent streams are.
	JS jetstream.JetStream
	// CheckPort, when set, says why an endpoint of the type may not take
	// the port on the event gateways of the site (nil: it may).
	CheckPort func(ctx context.Context, typ string, port int, site string) error
}

// Kinds are the kinds a backup holds (SPEC 2.16), in the order it
// writes and counts them. A mapping is derived, not stored: the
// stream-to-pipeline bindings of a deployment (see mappings.go).
var Kinds = []*Kind{
	{Code: "d", Dir: "dashboards", Title: "Dashboards", collect: records(artifact.Dashboard)},
	{Code: "dg", Dir: "dashboard_groups", Title: "Dashboard groups", collect: records(artifact.DashGroup)},
	{Code: "pl", Dir: "pipelines", Title: "Published pipelines", collect: publishedPipelines},
	{Code: "bp", Dir: "blueprints", Title: "Blueprints", collect: records(artifact.Deployment)},
	{Code: "syn", Dir: "synthetic_profiles", Title: "Synthetic profiles", collect: records(artifact.Synthetics)},
	{Code: "st", Dir: "stacks", Title: "Stacks used in synthetic profiles", collect: usedStacks},
	{Code: "ep", Dir: "endpoints", Title: "Endpoints", collect: records(artifact.EventEndpoint)},
	{Code: "map", Dir: "mappings", Title: "Mappings", collect: mappings},
	{Code: "ps", Dir: "pstreams", Title: "Persistent streams", collect: persistentStreams},
}

// KindByCode returns the kind of a diff --opts code, or of its folder's
// name (dashboards, pstreams, ...).
func KindByCode(code string) (*Kind, bool) {
	for _, k := range Kinds {
		if k.Code == code || k.Dir == code {
			return k, true
		}
	}
	return nil, false
}

// records collects every record of an artifact kind.
func records(k *artifact.Kind) func(ctx context.Context, s *Source) ([]Item, error) {
	return func(ctx context.Context, s *Source) ([]Item, error) {
		recs, err := s.Repo.List(ctx, k)
		if err != nil {
			return nil, err
		}
		items := make([]Item, 0, len(recs))
		for _, r := range recs {
			name, _ := r.Doc.String(k.Key)
			items = append(items, Item{Name: name, Doc: r.Doc})
		}
		return items, nil
	}
}

// publishedPipelines collects every version of the published pipelines,
// each as NAME.VERSION.
func publishedPipelines(ctx context.Context, s *Source) ([]Item, error) {
	ps, err := s.Data.Pipelines(ctx)
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, p := range ps {
		versions, err := s.Data.PipelineVersions(ctx, p.Name)
		if err != nil {
			return nil, err
		}
		for _, v := range versions {
			if v.Pipetype != api.PipetypePublished {
				continue
			}
			data, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			d, err := artifact.Parse(data)
			if err != nil {
				return nil, err
			}
			items = append(items, Item{Name: v.Name + "." + v.Version, Doc: d})
		}
	}
	return items, nil
}

// usedStacks collects the stacks a synthetic profile names.
func usedStacks(ctx context.Context, s *Source) ([]Item, error) {
	profiles, err := s.Repo.List(ctx, artifact.Synthetics)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, p := range profiles {
		if name, ok := p.Doc.String("stack"); ok {
			used[name] = true
		}
	}
	all, err := records(artifact.Stack)(ctx, s)
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, it := range all {
		if used[it.Name] {
			items = append(items, it)
		}
	}
	return items, nil
}

// Count is how many artifacts of a kind a backup holds.
type Count struct {
	Kind  string `json:"kind"`
	Dir   string `json:"dir"`
	Count int    `json:"count"`
}

// ManifestName is the file that says what a backup holds.
const ManifestName = "backup.json"

// Manifest is what a backup holds and when it was made.
type Manifest struct {
	Created string  `json:"created"`
	Format  string  `json:"format"`
	Counts  []Count `json:"counts"`
}

// CheckDestination checks that dir can receive a backup: it is new (its
// parent exists), or an empty directory.
func CheckDestination(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return fmt.Errorf("%s is not empty: back up into a new directory", dir)
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		if st, err := os.Stat(filepath.Dir(filepath.Clean(dir))); err != nil || !st.IsDir() {
			return fmt.Errorf("backing up into %s: its parent directory does not exist", dir)
		}
		return nil
	}
	return fmt.Errorf("backing up into %s: %v", dir, trimPath(err))
}

// Write backs the tenant's artifacts up into dir (created; an existing
// one must be empty), as JSON or, with asYAML, YAML. The files are
// written beside dir and moved into place at the end.
func Write(ctx context.Context, s *Source, dir string, asYAML bool) ([]Count, error) {
	if err := CheckDestination(dir); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".partial-")
	if err != nil {
		return nil, fmt.Errorf("backing up into %s: %v", dir, trimPath(err))
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	ext, format := ".json", "json"
	if asYAML {
		ext, format = ".yaml", "yaml"
	}
	var counts []Count
	for _, k := range Kinds {
		items, err := k.collect(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("backing up the %s: %v", strings.ToLower(k.Title), err)
		}
		counts = append(counts, Count{Kind: k.Title, Dir: k.Dir, Count: len(items)})
		// Every kind has its folder, empty or not: a setup of the backup
		// warns of a missing one.
		if err := os.Mkdir(filepath.Join(tmp, k.Dir), 0o755); err != nil {
			return nil, err
		}
		for _, it := range items {
			data, err := render(it.Doc, asYAML)
			if err != nil {
				return nil, err
			}
			path := filepath.Join(tmp, k.Dir, FileName(it.Name)+ext)
			if err := writeFile(path, data); err != nil {
				return nil, fmt.Errorf("backing up %s %q: %v", k.Dir, it.Name, err)
			}
		}
	}
	created := api.Timestamp(time.Now())
	m, _ := json.MarshalIndent(Manifest{Created: created, Format: format, Counts: counts}, "", "  ")
	if err := writeFile(filepath.Join(tmp, ManifestName), append(m, '\n')); err != nil {
		return nil, err
	}
	settings, _ := json.MarshalIndent(Settings{Description: "demo backup of " + created}, "", "  ")
	if err := writeFile(filepath.Join(tmp, SettingsName), append(settings, '\n')); err != nil {
		return nil, err
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("backing up into %s: %v", dir, trimPath(err))
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("backing up into %s: %v", dir, trimPath(err))
	}
	done = true
	return counts, nil
}

// render writes a document as indented JSON or as YAML, its keys in
// order.
func render(d *artifact.Doc, asYAML bool) ([]byte, error) {
	if asYAML {
		return d.YAML()
	}
	var b bytes.Buffer
	if err := json.Indent(&b, d.JSON(), "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func writeFile(path string, data []byte) error {
	return safefile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// FileName turns an artifact's name into a file name (pack.FileName):
// letters, digits, '-', '_' and inner '.' stay, any other byte is written
// as =XX.
func FileName(name string) string { return pack.FileName(name) }

// trimPath drops the operation and path an *fs.PathError repeats.
func trimPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
