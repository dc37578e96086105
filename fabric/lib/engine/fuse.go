package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// TableStore is a Store that also opens a dataset as a lazy table. With
// one, the engine fuses a recall with the filters and column selections
// that follow it into one streamed read: the dataset's batches go
// through the filters as they are read, only the columns kept are
// decoded, and row groups no row of which can match are skipped, so the
// run holds the result and a few batches rather than the whole dataset.
type TableStore interface {
	Store
	DatasetTable(ctx context.Context, name string) (*lazy.Table, error)
}

// fusable reports whether a node is a built-in step the engine can fuse
// into a recall's read (an extension with the same tag is not).
func fusable(n *node) bool {
	if n.kind != nodeBot {
		return false
	}
	switch n.bot.doc.Tag {
	case "*dm:filter", "@dm:selectcolumns":
		return n.bot == registry[n.bot.doc.Tag]
	}
	return false
}

// fuse runs nodes[0], a recall, with the fusable steps that follow it as
// one read, when it can. It returns the frame and how many nodes it ran
// (0 when it did not fuse: the caller runs them one by one).
func (r *run) fuse(nodes []*node, vars map[string]string) (*frame.Frame, int, error) {
	n := nodes[0]
	if n.kind != nodeBot || n.bot != registry["@dm:recall"] || len(nodes) < 2 || !fusable(nodes[1]) {
		return nil, 0, nil
	}
	ts, ok := r.e.Store.(TableStore)
	if !ok {
		return nil, 0, nil
	}
	start := time.Now()
	p, err := r.args(n, vars)
	if err != nil {
		return nil, 0, nil // the step reports it when run on its own
	}
	name := p.str("name")
	if isTemp(name) {
		return nil, 0, nil
	}
	t, err := ts.DatasetTable(r.ctx, name)
	if err != nil {
		r.trace(n.step, StatusStarted, emptyFrame(), 0, "")
		return nil, 0, r.fail(n.step, start, loadErr("name", name, err))
	}
	// Plan the steps that fuse; stop at the first that cannot.
	k := 1
	for ; k < len(nodes) && fusable(nodes[k]); k++ {
		next, ok, err := r.plan(t, nodes[k], vars)
		if err != nil || !ok {
			break // run from there one step at a time (and report its error then)
		}
		t = next
	}
	if k == 1 {
		return nil, 0, nil // nothing fuses: the steps run one by one
	}
	r.trace(n.step, StatusStarted, emptyFrame(), 0, "")
	out, err := t.Collect(r.ctx)
	if err != nil {
		return nil, 0, r.fail(n.step, start, loadErr("name", name, err))
	}
	if err := r.within(out); err != nil {
		return nil, 0, r.fail(n.step, start, err)
	}
	r.trace(n.step, StatusCompleted, out, time.Since(start),
		fmt.Sprintf("read as one stream with steps %d-%d", n.step+2, nodes[k-1].step+1))
	for _, x := range nodes[1:k] {
		r.trace(x.step, StatusStarted, out, 0, "")
		r.trace(x.step, StatusCompleted, out, 0, fmt.Sprintf("run in step %d's stream", n.step+1))
	}
	return out, k, nil
}

// plan adds a fusable step to a table's plan; ok is false when the step
// cannot be planned without reading (a column selection over a table
// whose columns only a read tells).
func (r *run) plan(t *lazy.Table, n *node, vars map[string]string) (*lazy.Table, bool, error) {
	p, err := r.args(n, vars)
	if err != nil {
		return nil, false, err
	}
	switch n.bot.doc.Tag {
	case "*dm:filter":
		q, err := r.filterQuery(p)
		if err != nil {
			return nil, false, err
		}
		next := t.Filter(q)
		return next, true, next.Check(r.ctx)
	case "@dm:selectcolumns":
		cols, err := t.Columns(r.ctx)
		if err != nil || cols == nil {
			return nil, false, err
		}
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Column
		}
		keep, err := selectedColumns(p, names)
		if err != nil || len(keep) == len(cols) {
			return t, err == nil, err
		}
		return t.Select(keep), true, nil
	}
	return nil, false, nil
}
