package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
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

// streams reports whether a node is a built-in bot that runs batch by
// batch (BotDoc.Streams).
func streams(n *node) bool {
	return n.kind == nodeBot && n.bot.doc.Streams && n.bot == registry[n.bot.doc.Tag]
}

// batchStep is a step run on each batch of a stream.
type batchStep struct {
	n    *node
	p    *params
	left int // a head's rows still to pass (-1: not a head)
}

// fuse runs nodes[0], a recall, with the steps that follow it as one
// stream, when it can: the filters and column selections right after the
// recall go into the read (only the columns kept are decoded, row groups
// no row of which can match are skipped), and the streaming steps after
// them run on each batch as it is read. It returns the frame and how many
// nodes it ran (0 when it did not fuse: the caller runs them one by one).
func (r *run) fuse(nodes []*node, vars map[string]string) (*frame.Frame, int, error) {
	n := nodes[0]
	if n.kind != nodeBot || n.bot != registry["@dm:recall"] || len(nodes) < 2 || !streams(nodes[1]) {
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
	// Plan the steps that go into the read; stop at the first that
	// cannot.
	k := 1
	for ; k < len(nodes) && fusable(nodes[k]); k++ {
		next, ok, err := r.plan(t, nodes[k], vars)
		if err != nil || !ok {
			break // run from there in the stream, or on its own
		}
		t = next
	}
	// The streaming steps after them run on each batch.
	var batch []batchStep
	j := k
	for ; j < len(nodes) && streams(nodes[j]); j++ {
		bp, err := r.args(nodes[j], vars)
		if err != nil {
			break // the step reports it when run on its own
		}
		left := -1
		if nodes[j].bot.doc.Tag == "@dm:head" {
			left = bp.int("n")
		}
		batch = append(batch, batchStep{n: nodes[j], p: bp, left: left})
	}
	r.trace(n.step, StatusStarted, emptyFrame(), 0, "")
	out, err := r.stream(t, batch)
	if _, ok := err.(stepErr); ok {
		// A step failed on a batch: its error would name rows of the
		// batch, not of the table. Run the steps one by one, which fail
		// the same way with the table's row numbers.
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, r.fail(n.step, start, loadErr("name", name, err))
	}
	if err := r.within(out); err != nil {
		return nil, 0, r.fail(n.step, start, err)
	}
	r.trace(n.step, StatusCompleted, out, time.Since(start),
		fmt.Sprintf("read as one stream with steps %d-%d", n.step+2, nodes[j-1].step+1))
	for _, x := range nodes[1:j] {
		r.trace(x.step, StatusStarted, out, 0, "")
		r.trace(x.step, StatusCompleted, out, 0, fmt.Sprintf("run in step %d's stream", n.step+1))
	}
	return out, j, nil
}

// stepErr is the failure of a step run on a batch.
type stepErr struct {
	n   *node
	err error
}

func (e stepErr) Error() string { return fmt.Sprintf("step %d: %v", e.n.step+1, e.err) }

// stream reads t and runs steps on each batch; it stops reading once a
// head has its rows. The result is the batches' results, in order.
func (r *run) stream(t *lazy.Table, steps []batchStep) (*frame.Frame, error) {
	src, err := t.Open(r.ctx)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var outs []*frame.Frame
	var rows int64
	for {
		rec, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		f := frame.FromRecords(src.Schema(), []arrow.Record{rec}) // takes rec's reference
		f, done, err := r.runBatch(f, steps)
		if err != nil {
			return nil, err
		}
		outs = append(outs, f)
		rows += int64(f.NumRows())
		if r.e.Limits.MaxRows > 0 && rows > r.e.Limits.MaxRows {
			break // within reports it
		}
		if done {
			break
		}
	}
	if len(outs) == 0 {
		// No batch: the steps' result for no rows.
		f, _, err := r.runBatch(frame.FromRecords(src.Schema(), nil), steps)
		return f, err
	}
	var kept []*frame.Frame
	for _, f := range outs {
		if f.NumRows() > 0 {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		return outs[0], nil
	}
	return concat(kept...)
}

// runBatch runs the steps on one batch; done is true once a head has all
// its rows (nothing more can pass it).
func (r *run) runBatch(f *frame.Frame, steps []batchStep) (*frame.Frame, bool, error) {
	done := false
	for i := range steps {
		s := &steps[i]
		if s.left >= 0 {
			f = f.Head(s.left)
			s.left -= f.NumRows()
			done = done || s.left == 0
			continue
		}
		r.at = s.n.step
		out, err := s.n.bot.run(r, f, s.p)
		if err != nil {
			return nil, false, stepErr{s.n, err}
		}
		f = out
	}
	return f, done, nil
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
