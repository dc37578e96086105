package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// bundleItem is an artifact of a bundle, parsed and checked, with what
// the fabric has of it.
type bundleItem struct {
	row api.BundleRow
	// p is a pipeline.
	p api.Pipeline
	// kind, key, doc and source are a blueprint's or a dashboard's: its
	// kind, its record's name, its document and how it is written.
	kind   *artifact.Kind
	key    string
	doc    *artifact.Doc
	source string
	// enable is true for a blueprint its document enables.
	enable bool
	// prev is the record the fabric has (nil: none).
	prev *artifact.Record
}

// plan parses and checks the files of the types asked for (none: all),
// in deployment order, and reads what the fabric has of each. A
// blueprint may name the bundle's pipelines when they are deployed with
// it.
func (b *bundles) plan(ctx context.Context, st *store.Store, files []bundleDoc, types []string) ([]*bundleItem, *artifact.Repo, error) {
	if len(types) == 0 {
		types = api.BundleTypes
	}
	for _, t := range types {
		if !slices.Contains(api.BundleTypes, t) {
			return nil, nil, fmt.Errorf("no artifact type %q (want %s, %s or %s)", t, api.BundlePipeline, api.BundleBlueprint, api.BundleDashboard)
		}
	}
	r := &artifact.Repo{Store: st}
	latest, err := b.data.Pipelines(ctx)
	if err != nil {
		return nil, nil, err
	}
	known := map[string]bool{}
	for _, p := range latest {
		known[p.Name] = true
	}
	var items []*bundleItem
	if slices.Contains(types, api.BundlePipeline) {
		ps, err := b.pipelines(filesOf(files, api.BundlePipeline), latest)
		if err != nil {
			return nil, nil, err
		}
		for _, it := range ps {
			known[it.p.Name] = true
		}
		items = append(items, ps...)
	}
	for _, k := range []struct {
		typ  string
		kind *artifact.Kind
	}{{api.BundleBlueprint, blueprintCheck(known, slices.Contains(types, api.BundlePipeline))}, {api.BundleDashboard, artifact.Dashboard}} {
		if !slices.Contains(types, k.typ) {
			continue
		}
		docs, err := b.docs(ctx, r, filesOf(files, k.typ), k.typ, k.kind)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, docs...)
	}
	return items, r, nil
}

// bundleDoc is a document of a bundle, read from where it was staged.
type bundleDoc struct {
	Type, Path string
	Data       []byte
}

// filesOf returns the files of one type, by path.
func filesOf(files []bundleDoc, typ string) []bundleDoc {
	var out []bundleDoc
	for _, f := range files {
		if f.Type == typ {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// pipelines reads the bundle's pipelines as 'pipeline add' does, checks
// them and compares each with its latest version, by name.
func (b *bundles) pipelines(files []bundleDoc, latest []api.Pipeline) ([]*bundleItem, error) {
	var items []*bundleItem
	seen := map[string]string{}
	for _, f := range files {
		p, err := tenant.LoadPipeline(f.Data, f.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.Path, err)
		}
		if p.Pipetype == "" {
			p.Pipetype = api.PipetypePublished
		}
		if p.Pipetype, err = pipeline.Pipetype(p.Pipetype); err != nil {
			return nil, fmt.Errorf("%s: %v", f.Path, err)
		}
		for i, s := range p.Data.Sequence {
			if !pipeline.ValidTag(s.Tag) {
				return nil, fmt.Errorf("%s: step %d: %q is not a bot tag (want @ns:bot, *ns:bot or #ns:bot)", f.Path, i+1, s.Tag)
			}
		}
		if other, ok := seen[p.Name]; ok {
			return nil, fmt.Errorf("%s: a second pipeline named %q (the first is %s)", f.Path, p.Name, other)
		}
		seen[p.Name] = f.Path
		data, _ := json.Marshal(p)
		if err := b.fits(len(data)); err != nil {
			return nil, fmt.Errorf("%s: %v", f.Path, err)
		}
		it := &bundleItem{row: api.BundleRow{Type: api.BundlePipeline, Name: p.Name, File: f.Path, Change: api.ChangeNew}, p: p}
		for _, l := range latest {
			if l.Name == p.Name {
				it.row.Change, it.row.PipelineVersion = api.ChangeChanged, l.Version
				if samePipeline(l, p) {
					it.row.Change = api.ChangeUnchanged
				}
			}
		}
		items = append(items, it)
	}
	sortItems(items)
	return items, nil
}

// samePipeline reports whether two pipelines have the same content: all
// but their version, when they were saved, the form they are kept in and
// the name of what they were added from.
func samePipeline(a, b api.Pipeline) bool {
	content := func(p api.Pipeline) []byte {
		// data.name is where it was added from (a file's base name), not
		// what it does.
		p.Version, p.SavedTime, p.Format, p.Data.Name = "", "", "", ""
		// As the store fills it in when it adds a pipeline.
		if p.Data.Sequence == nil {
			p.Data.Sequence = []api.PipelineStep{}
		}
		if p.Pipetype == "" {
			p.Pipetype = api.PipetypePublished
		}
		data, _ := json.Marshal(p)
		return data
	}
	return string(content(a)) == string(content(b))
}

// blueprintCheck is the deployment kind as a bundle checks its
// blueprints: the same schema and checks, with the pipelines of the
// fabric and those deployed with the bundle (known; withBundle says
// whether the bundle's pipelines are deployed).
func blueprintCheck(known map[string]bool, withBundle bool) *artifact.Kind {
	k := artifact.Deployment
	where := "in the fabric or the bundle"
	if !withBundle {
		where = "in the fabric (this run deploys none of the bundle's pipelines)"
	}
	return &artifact.Kind{Name: k.Name, Bucket: k.Bucket, Key: k.Key, Schema: k.Schema, Toggle: k.Toggle, YAML: k.YAML,
		Columns: k.Columns, Check: func(_ context.Context, _ *artifact.Repo, d *artifact.Doc) error {
			b, err := blueprint.Parse(d.JSON())
			if err != nil {
				return err
			}
			at := map[string]int{}
			for _, e := range b.Entries() {
				i := at[e.Kind]
				at[e.Kind]++
				if !known[e.Name] {
					return fmt.Errorf("%s_pipelines[%d]: no pipeline named %q %s", e.Kind, i, e.Name, where)
				}
			}
			return nil
		}}
}

// docs reads and checks the bundle's documents of a type (a blueprint or
// a dashboard, as kind k checks it), and reads the record the fabric has
// of each.
func (b *bundles) docs(ctx context.Context, r *artifact.Repo, files []bundleDoc, typ string, k *artifact.Kind) ([]*bundleItem, error) {
	var items []*bundleItem
	seen := map[string]string{}
	for _, f := range files {
		d, err := artifact.Parse(f.Data)
		if err == nil {
			err = r.Validate(ctx, k, d)
		}
		if err == nil {
			err = b.fits(len(d.JSON()))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.Path, err)
		}
		key, _ := d.String(k.Key)
		if other, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s: a second %s with %s %q (the first is %s)", f.Path, typ, k.Key, key, other)
		}
		seen[key] = f.Path
		it := &bundleItem{row: api.BundleRow{Type: typ, Name: key, File: f.Path}, kind: artifact.Dashboard, key: key, doc: d, source: source(f.Data)}
		if typ == api.BundleBlueprint {
			bp, err := blueprint.Parse(d.JSON())
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f.Path, err)
			}
			it.kind, it.enable = artifact.Deployment, bp.IsEnabled()
			it.row.Name, it.row.BlueprintID = bp.Name, key
		}
		if it.row.Change, it.prev, err = compareDoc(ctx, r, it.kind, key, d); err != nil {
			return nil, fmt.Errorf("%s: %v", f.Path, err)
		}
		items = append(items, it)
	}
	sortItems(items)
	return items, nil
}

// compareDoc reads the record name of kind k and compares its document
// with d, as the store would keep d: saved_time aside, enabled (for the
// kinds that toggle) true unless d says otherwise.
func compareDoc(ctx context.Context, r *artifact.Repo, k *artifact.Kind, name string, d *artifact.Doc) (string, *artifact.Record, error) {
	prev, err := r.Get(ctx, k, name)
	if errors.Is(err, artifact.ErrNotFound) {
		return api.ChangeNew, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	stored, want := fields(prev.Doc), fields(d)
	delete(stored, "saved_time")
	delete(want, "saved_time")
	if _, ok := want["enabled"]; k.Toggle && !ok {
		want["enabled"] = true
	}
	if reflect.DeepEqual(stored, want) {
		return api.ChangeUnchanged, &prev, nil
	}
	return api.ChangeChanged, &prev, nil
}

// fields returns a document's top-level fields as plain values (a copy
// of the map: its values are shared).
func fields(d *artifact.Doc) map[string]any {
	out := map[string]any{}
	if m, ok := d.Value().(map[string]any); ok {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// fits checks that a record of n bytes fits in a message of the fabric
// (with room for what the store adds).
func (b *bundles) fits(n int) error {
	if max := b.nc.MaxPayload(); int64(n)+1024 > max {
		return fmt.Errorf("%d bytes: the fabric stores documents up to %d bytes", n, max-1024)
	}
	return nil
}

// sortItems sorts items of one type by name (then id).
func sortItems(items []*bundleItem) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i].row, items[j].row
		return a.Name < b.Name || a.Name == b.Name && a.BlueprintID < b.BlueprintID
	})
}

// rowsOf returns the items' rows (an empty list for none).
func rowsOf(items []*bundleItem) []api.BundleRow {
	rows := make([]api.BundleRow, len(items))
	for i, it := range items {
		rows[i] = it.row
	}
	return rows
}

// source says how a document is written, as the artifact store keeps it:
// "json" or "yaml".
func source(data []byte) string {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return "json"
	}
	return "yaml"
}
