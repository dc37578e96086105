package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
)

// bundles answers api.SubjectBundleDeploy: it deploys a bundle as one
// transaction, or compares it with what the tenant has, reading the
// bundle's files from where the client staged them in the tenant's
// object store. nc is the api-server's connection (its message limit
// bounds a stored document), data the tenant's data layer, logf the
// pod's log. The requests of one api-server are answered one at a time
// (one subscription), so its deployments do not interleave.
type bundles struct {
	nc   *nats.Conn
	data *tenant.Data
	logf func(string, ...any)
}

// writtenHook, when set, is called after each artifact a deployment
// writes; an error ends the deployment, which is then undone. Only the
// tests set it, to make a deployment fail half-way.
var writtenHook atomic.Pointer[func(api.BundleRow) error]

// serve answers a BundleDeployRequest with the bundle's rows, or an
// Error.
func (b *bundles) serve(m *nats.Msg) {
	var req api.BundleDeployRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pod.Reply(m, api.Error{Error: "bad bundle-deploy request: " + err.Error()})
		return
	}
	rows, err := b.deploy(req)
	if err != nil {
		pod.Reply(m, api.Error{Error: err.Error()})
		return
	}
	pod.Reply(m, rows)
}

// deploy reads the request's staged files and deletes them (whatever the
// outcome), then deploys its files of its types (none: all) and returns
// a row for each, or only compares them with what the tenant has
// (req.Compare). Every document is parsed and checked before anything
// is written; then the pipelines are added (as new versions), the
// blueprints stored disabled, the dashboards stored, and last the
// blueprints whose documents say so are enabled. An artifact the fabric
// has unchanged is left as it is. When a write fails, what this run
// wrote is undone: its pipeline versions and new records are deleted,
// the records it replaced are put back, so that nothing of the bundle
// runs.
func (b *bundles) deploy(req api.BundleDeployRequest) ([]api.BundleRow, error) {
	ctx, cancel := context.WithTimeout(context.Background(), api.BundleDeployTimeout)
	defer cancel()
	st, err := b.data.Store(ctx)
	if err != nil {
		return nil, timedOut(ctx, err)
	}
	docs, err := readStaged(ctx, st, req.Files)
	b.unstage(st, req.Files)
	if err != nil {
		return nil, timedOut(ctx, err)
	}
	items, r, err := b.plan(ctx, st, docs, req.Types)
	if err != nil {
		return nil, timedOut(ctx, err)
	}
	if req.Compare {
		return rowsOf(items), nil
	}
	d := &bundleDeploy{data: b.data, r: r}
	if hook := writtenHook.Load(); hook != nil {
		d.written = *hook
	}
	if err := d.run(ctx, items); err != nil {
		err = timedOut(ctx, err)
		uctx, cancel := context.WithTimeout(context.Background(), api.BundleUndoTimeout)
		defer cancel()
		if uerr := d.undo(uctx); uerr != nil {
			return nil, fmt.Errorf("%v; undoing what this run wrote failed too: %v", err, timedOut(uctx, uerr))
		}
		return nil, fmt.Errorf("%v (nothing of the bundle is deployed: what this run wrote was undone)", err)
	}
	return rowsOf(items), nil
}

// readStaged reads a bundle's staged files, within api.MaxBundleFiles
// files, api.MaxBundleFile bytes a file and api.MaxBundleSize in all:
// the sizes the request gives are checked before anything is read, and
// each staged file's own size before it is read.
func readStaged(ctx context.Context, st *store.Store, files []api.BundleFile) ([]bundleDoc, error) {
	if err := api.BundleFilesError(len(files)); err != nil {
		return nil, err
	}
	var declared int64
	for _, f := range files {
		switch {
		case !slices.Contains(api.BundleTypes, f.Type):
			return nil, fmt.Errorf("%s: no artifact type %q (want %s, %s or %s)", f.Path, f.Type, api.BundlePipeline, api.BundleBlueprint, api.BundleDashboard)
		case !api.Staged(f.Blob):
			return nil, fmt.Errorf("%s: %q is not where a bundle's file is staged (a path under %s)", f.Path, f.Blob, api.BundleStagePrefix)
		case f.Size < 0:
			return nil, fmt.Errorf("%s: a size of %d bytes", f.Path, f.Size)
		}
		declared += f.Size
		if err := api.BundleSizeError(f.Path, f.Size, declared); err != nil {
			return nil, err
		}
	}
	docs := make([]bundleDoc, 0, len(files))
	var total int64
	for _, f := range files {
		data, err := readBlob(ctx, st, f, &total)
		if err != nil {
			return nil, err
		}
		docs = append(docs, bundleDoc{Type: f.Type, Path: f.Path, Data: data})
	}
	return docs, nil
}

// readBlob reads a staged file, adding its size to total, after checking
// that size against the bounds.
func readBlob(ctx context.Context, st *store.Store, f api.BundleFile, total *int64) ([]byte, error) {
	r, size, err := st.GetBlob(ctx, f.Blob)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%s: not staged at %s in the tenant's object store (deleted, or never written)", f.Path, f.Blob)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", f.Path, err)
	}
	defer r.Close()
	*total += size
	if err := api.BundleSizeError(f.Path, size, *total); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", f.Path, err)
	}
	if int64(len(data)) != size || size != f.Size {
		return nil, fmt.Errorf("%s: the staged file changed while it was read (%d bytes, the request says %d)", f.Path, len(data), f.Size)
	}
	return data, nil
}

// unstageTimeout bounds the deleting of a request's staged files; what
// it leaves, the sweep of unreferenced data removes.
const unstageTimeout = 30 * time.Second

// unstage deletes the request's staged files (only paths under
// api.BundleStagePrefix), giving up after unstageTimeout.
func (b *bundles) unstage(st *store.Store, files []api.BundleFile) {
	deadline := time.Now().Add(unstageTimeout)
	for i, f := range files {
		if !api.Staged(f.Blob) {
			continue
		}
		if time.Now().After(deadline) {
			b.logf("timed out after %s deleting the staged files of a bundle: %d left to the sweep", unstageTimeout, len(files)-i)
			return
		}
		if err := st.DeleteBlob(context.Background(), f.Blob); err != nil {
			b.logf("deleting a bundle's staged file: %v (the sweep removes it)", err)
		}
	}
}

// timedOut says so when err came of ctx's deadline.
func timedOut(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%v (the api-server gives a bundle %s to deploy and %s to undo)", err, api.BundleDeployTimeout, api.BundleUndoTimeout)
	}
	return err
}

// bundleDeploy is a deployment of a bundle under way: what it wrote, to
// undo it.
type bundleDeploy struct {
	data    *tenant.Data
	r       *artifact.Repo
	written func(api.BundleRow) error
	// added are the pipeline versions it added.
	added []api.Pipeline
	// stored are the blueprints and dashboards it stored.
	stored []*bundleItem
}

// run writes the items that changed, in order, then enables the
// blueprints that want it.
func (d *bundleDeploy) run(ctx context.Context, items []*bundleItem) error {
	for _, it := range items {
		if it.row.Change == api.ChangeUnchanged {
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
	if it.row.Type == api.BundlePipeline {
		p, err := d.data.AddPipeline(ctx, it.p)
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
		if err := d.data.DeletePipeline(ctx, p.Name, p.Version); err != nil {
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
