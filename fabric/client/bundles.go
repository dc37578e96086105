package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// Changes of a bundle's artifact against what the fabric has.
const (
	ChangeNew       = "new"
	ChangeChanged   = "changed"
	ChangeUnchanged = "unchanged"
)

// BundleRow is an artifact of a bundle, as bundle-deploy reports it.
type BundleRow struct {
	// Type is BundlePipeline, BundleBlueprint or BundleDashboard.
	Type string `json:"type"`
	// Name is the artifact's name (a blueprint's name; its id is
	// BlueprintID).
	Name string `json:"name"`
	// Change is ChangeNew, ChangeChanged or ChangeUnchanged: the bundle's
	// artifact against what the fabric had.
	Change string `json:"change"`
	// File is the artifact's file in the bundle.
	File string `json:"file"`
	// PipelineVersion is a pipeline's version: the one added, or the
	// latest when it was unchanged ("" for a new one that is compared).
	PipelineVersion string `json:"pipeline_version,omitempty"`
	// BlueprintID is a blueprint's id.
	BlueprintID string `json:"blueprint_id,omitempty"`
}

// BundleOptions says what DeployBundle deploys.
type BundleOptions struct {
	// Types are the types of artifacts to deploy (BundleTypes); none: all.
	Types []string
	// Written, when set, is called after each artifact is written; an
	// error ends the deployment, which is then undone.
	Written func(BundleRow) error
}

// bundleItem is an artifact of a bundle, parsed and checked, with what
// the fabric has of it.
type bundleItem struct {
	row BundleRow
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

// CompareBundle parses and checks a bundle's artifacts of the given types
// (none: all) and says which are new, changed or unchanged: a pipeline's
// content against its latest version, a blueprint's or a dashboard's
// document against the stored one. It writes nothing.
func (c *Client) CompareBundle(ctx context.Context, b *Bundle, types []string) ([]BundleRow, error) {
	items, _, err := c.planBundle(ctx, b, types)
	if err != nil {
		return nil, err
	}
	return rowsOf(items), nil
}

// planBundle parses and checks the artifacts of the types asked for, in
// deployment order, and reads what the fabric has of each. A blueprint
// may name the bundle's pipelines when they are deployed with it.
func (c *Client) planBundle(ctx context.Context, b *Bundle, types []string) ([]*bundleItem, *artifact.Repo, error) {
	if len(types) == 0 {
		types = BundleTypes
	}
	for _, t := range types {
		if !slices.Contains(BundleTypes, t) {
			return nil, nil, fmt.Errorf("no artifact type %q (want %s, %s or %s)", t, BundlePipeline, BundleBlueprint, BundleDashboard)
		}
	}
	r, err := artifactRepo(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	latest, err := c.Data.Pipelines(ctx)
	if err != nil {
		return nil, nil, err
	}
	known := map[string]bool{}
	for _, p := range latest {
		known[p.Name] = true
	}
	var items []*bundleItem
	if slices.Contains(types, BundlePipeline) {
		ps, err := c.bundlePipelines(b, latest)
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
	}{{BundleBlueprint, blueprintCheck(known, slices.Contains(types, BundlePipeline))}, {BundleDashboard, artifact.Dashboard}} {
		if !slices.Contains(types, k.typ) {
			continue
		}
		docs, err := c.bundleDocs(ctx, r, b, k.typ, k.kind)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, docs...)
	}
	return items, r, nil
}

// artifactRepo opens the tenant's artifact store.
func artifactRepo(ctx context.Context, c *Client) (*artifact.Repo, error) {
	st, err := c.Data.Store(ctx)
	if err != nil {
		return nil, err
	}
	return &artifact.Repo{Store: st}, nil
}

// bundlePipelines reads the bundle's pipelines as 'pipeline add' does,
// checks them and compares each with its latest version, by name.
func (c *Client) bundlePipelines(b *Bundle, latest []api.Pipeline) ([]*bundleItem, error) {
	var items []*bundleItem
	seen := map[string]string{}
	for _, f := range b.files(BundlePipeline) {
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
		if err := c.fits(len(data)); err != nil {
			return nil, fmt.Errorf("%s: %v", f.Path, err)
		}
		it := &bundleItem{row: BundleRow{Type: BundlePipeline, Name: p.Name, File: f.Path, Change: ChangeNew}, p: p}
		for _, l := range latest {
			if l.Name == p.Name {
				it.row.Change, it.row.PipelineVersion = ChangeChanged, l.Version
				if samePipeline(l, p) {
					it.row.Change = ChangeUnchanged
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

// bundleDocs reads and checks the bundle's documents of a type (a
// blueprint or a dashboard, as kind k checks it), and reads the record
// the fabric has of each.
func (c *Client) bundleDocs(ctx context.Context, r *artifact.Repo, b *Bundle, typ string, k *artifact.Kind) ([]*bundleItem, error) {
	var items []*bundleItem
	seen := map[string]string{}
	for _, f := range b.files(typ) {
		d, err := artifact.Parse(f.Data)
		if err == nil {
			err = r.Validate(ctx, k, d)
		}
		if err == nil {
			err = c.fits(len(d.JSON()))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.Path, err)
		}
		key, _ := d.String(k.Key)
		if other, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s: a second %s with %s %q (the first is %s)", f.Path, typ, k.Key, key, other)
		}
		seen[key] = f.Path
		it := &bundleItem{row: BundleRow{Type: typ, Name: key, File: f.Path}, kind: artifact.Dashboard, key: key, doc: d, source: source(f.Data)}
		if typ == BundleBlueprint {
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
		return ChangeNew, nil, nil
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
		return ChangeUnchanged, &prev, nil
	}
	return ChangeChanged, &prev, nil
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
func (c *Client) fits(n int) error {
	if max := c.nc.MaxPayload(); int64(n)+1024 > max {
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

// rowsOf returns the items' rows.
func rowsOf(items []*bundleItem) []BundleRow {
	rows := make([]BundleRow, len(items))
	for i, it := range items {
		rows[i] = it.row
	}
	return rows
}

// DeployBundle deploys a bundle's artifacts of the types o.Types (none:
// all) and returns a row for each. Every document is parsed and checked
// before anything is written; then the pipelines are added (as new
// versions), the blueprints stored disabled, the dashboards stored, and
// last the blueprints whose documents say so are enabled. An artifact
// the fabric has unchanged is left as it is. When a write fails, what
// this run wrote is undone: its pipeline versions and new records are
// deleted, the records it replaced are put back, so that nothing of the
// bundle runs.
func (c *Client) DeployBundle(ctx context.Context, b *Bundle, o BundleOptions) ([]BundleRow, error) {
	items, r, err := c.planBundle(ctx, b, o.Types)
	if err != nil {
		return nil, err
	}
	d := &bundleDeploy{c: c, r: r, written: o.Written}
	if err := d.run(ctx, items); err != nil {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
		defer cancel()
		if uerr := d.undo(uctx); uerr != nil {
			return nil, fmt.Errorf("%v; undoing what this run wrote failed too: %v", err, uerr)
		}
		return nil, fmt.Errorf("%v (nothing of the bundle is deployed: what this run wrote was undone)", err)
	}
	return rowsOf(items), nil
}

// undoTimeout bounds the undoing of a deployment that failed.
const undoTimeout = 30 * time.Second

// bundleDeploy is a deployment of a bundle under way: what it wrote, to
// undo it.
type bundleDeploy struct {
	c       *Client
	r       *artifact.Repo
	written func(BundleRow) error
	// added are the pipeline versions it added.
	added []api.Pipeline
	// stored are the blueprints and dashboards it stored.
	stored []*bundleItem
}

// run writes the items that changed, in order, then enables the
// blueprints that want it.
func (d *bundleDeploy) run(ctx context.Context, items []*bundleItem) error {
	for _, it := range items {
		if it.row.Change == ChangeUnchanged {
			continue
		}
		if err := d.write(ctx, it); err != nil {
			return fmt.Errorf("%s: %v", it.row.File, err)
		}
		if d.written != nil {
			if err := d.written(it.row); err != nil {
				return fmt.Errorf("%s: %v", it.row.File, err)
			}
		}
	}
	for _, it := range d.stored {
		if it.kind == artifact.Deployment && it.enable {
			if _, err := d.r.SetEnabled(ctx, it.kind, it.key, true); err != nil {
				return fmt.Errorf("%s: enabling deployment %q: %v", it.row.File, it.key, err)
			}
		}
	}
	return nil
}

// write writes one item: a pipeline as its next version, a blueprint
// disabled, a dashboard as it is.
func (d *bundleDeploy) write(ctx context.Context, it *bundleItem) error {
	if it.row.Type == BundlePipeline {
		p, err := d.c.AddPipeline(ctx, it.p)
		if err != nil {
			return err
		}
		d.added = append(d.added, p)
		it.row.PipelineVersion = p.Version
		return nil
	}
	doc := it.doc
	if it.kind == artifact.Deployment {
		doc.SetValue("enabled", false)
	}
	// Recorded first: a write that failed may have stored it still.
	d.stored = append(d.stored, it)
	_, err := d.r.AddDoc(ctx, it.kind, doc, it.source, true)
	return err
}

// undo deletes the pipeline versions and the new records this run wrote
// and puts back the records it replaced. It goes on after a failure and
// returns the first.
func (d *bundleDeploy) undo(ctx context.Context) error {
	var errs []error
	for _, p := range d.added {
		if err := d.c.DeletePipeline(ctx, p.Name, p.Version); err != nil {
			errs = append(errs, fmt.Errorf("pipeline %q version %s: %v", p.Name, p.Version, err))
		}
	}
	// New records first, an app's dashboard before its pages (deleting it
	// deletes them); then the replaced ones, which an app deleted may
	// have taken with it.
	slices.SortStableFunc(d.stored, func(a, b *bundleItem) int { return undoRank(a) - undoRank(b) })
	for _, it := range d.stored {
		if err := d.restore(ctx, it); err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %v", it.kind.Name, it.key, err))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}

// undoRank orders the records to undo: new apps, other new records, the
// replaced ones.
func undoRank(it *bundleItem) int {
	switch {
	case it.prev != nil:
		return 2
	case it.kind.Parts != nil && len(it.kind.Parts(it.doc)) > 0:
		return 0
	}
	return 1
}

// restore puts back what the fabric had of an item: nothing (the record
// is deleted) or its previous record.
func (d *bundleDeploy) restore(ctx context.Context, it *bundleItem) error {
	if it.prev == nil {
		err := d.r.Delete(ctx, it.kind, it.key)
		if errors.Is(err, artifact.ErrNotFound) {
			return nil
		}
		return err
	}
	cur, err := d.r.Get(ctx, it.kind, it.key)
	if errors.Is(err, artifact.ErrNotFound) {
		_, err = d.r.AddDoc(ctx, it.kind, it.prev.Doc, it.prev.Source, true)
		return err
	}
	if err != nil {
		return err
	}
	prev := *it.prev
	prev.Revision = cur.Revision
	return d.r.Replace(ctx, it.kind, it.key, prev)
}
