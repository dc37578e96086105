package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// Limits bound what one run may hold.
type Limits struct {
	// MaxRows bounds the rows of any table a step produces (a loop's
	// output counts as it grows, iteration by iteration).
	MaxRows int64
	// MaxMemoryMB bounds the memory of the tables the run holds at once:
	// the one a step produced, the temp- datasets and the outputs a loop
	// has gathered so far.
	MaxMemoryMB float64
}

// ErrLimit is the cause of a run stopped by its Limits.
var ErrLimit = errors.New("job limit exceeded")

// Each batch a frame holds costs memory beyond its buffers: the record,
// its arrays and their Go values, about a kilobyte and a half plus one
// per column (measured on one-row frames, the costliest shape: a loop of
// @dm:addrow gathers one per iteration).
const (
	batchOverhead  = 1536
	columnOverhead = 1024
)

// heldBytes is what holding f costs: its buffers and its batches.
func heldBytes(f *frame.Frame) int64 {
	if f == nil {
		return 0
	}
	return f.MemBytes() + int64(len(f.Records()))*(batchOverhead+columnOverhead*int64(f.NumCols()))
}

// newBudget is a run's account of what it holds, under ctx.
func (e *Engine) newBudget(ctx context.Context) *budget.Budget {
	return budget.New(ctx, "job", budget.Limits{Memory: int64(e.Limits.MaxMemoryMB * (1 << 20))})
}

// overMemory is the error of a run that would hold held bytes.
func (r *run) overMemory(held int64) error {
	return fmt.Errorf("%w: the job holds %.1f MB of tables, more than its memory limit of %g MB", ErrLimit, float64(held)/(1<<20), r.e.Limits.MaxMemoryMB)
}

// overRows is the error of a step that produced rows rows.
func (r *run) overRows(rows int64) error {
	return fmt.Errorf("%w: the step produced %d rows, more than the job's limit of %d rows", ErrLimit, rows, r.e.Limits.MaxRows)
}

// within checks the run's limits after a step produced out: its rows,
// and what the run holds with it.
func (r *run) within(out *frame.Frame) error {
	l := r.e.Limits
	if l.MaxRows > 0 && int64(out.NumRows()) > l.MaxRows {
		return r.overRows(int64(out.NumRows()))
	}
	return r.fits(heldBytes(out))
}

// hold charges the run for keeping f (a loop's gathered output, a temp-
// dataset) until release; over the memory limit it fails with the
// job's limit error and charges nothing (the run's context stays as it
// is, so the failing step is the one reported).
func (r *run) hold(f *frame.Frame) (int64, error) {
	n := heldBytes(f)
	if err := r.fits(n); err != nil {
		return 0, err
	}
	if err := r.e.Pool.Take(n); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrLimit, err)
	}
	if err := r.b.Grow(n); err != nil {
		r.e.Pool.Give(n)
		return 0, err
	}
	return n, nil
}

// release returns what hold charged.
func (r *run) release(n int64) {
	r.b.Shrink(n)
	r.e.Pool.Give(n)
}

// growing checks a table a bot is building, every few thousand rows:
// rows so far, of about rowBytes each, against the run's row limit and
// what it may hold. Bots whose output can outgrow their input
// (@dm:explode) call it as they go, so that they stop before the table
// is built rather than after.
func (r *run) growing(rows int, rowBytes int64) error {
	if rows&4095 != 0 {
		return nil
	}
	l := r.e.Limits
	if l.MaxRows > 0 && int64(rows) > l.MaxRows {
		return r.overRows(int64(rows))
	}
	if err := r.fits(int64(rows) * rowBytes); err != nil {
		return err
	}
	return r.ctx.Err()
}

// fits checks that the run may hold n more bytes than it does.
func (r *run) fits(n int64) error {
	if max := r.b.Limits().Memory; max > 0 && r.b.Held()+n > max {
		return r.overMemory(r.b.Held() + n)
	}
	if err := r.e.Pool.Fits(n); err != nil {
		return fmt.Errorf("%w: %v", ErrLimit, err)
	}
	return nil
}

// rowBytes estimates what a row of Go values costs while a bot builds a
// table from rows: the slice, an interface per value and its text.
func rowBytes(row []any) int64 {
	n := int64(24 + 16*len(row))
	for _, v := range row {
		if s, ok := v.(string); ok {
			n += int64(len(s))
		}
	}
	return n
}
