// Package budget fences one unit of work (a job, an AQL query, a bot call,
// a request) that runs on memory, CPU and time shared with other tenants.
//
// A Budget carries limits on the memory the unit holds, the rows it
// produces, the steps it takes, its wall time and the size of its result,
// and a context that is cancelled when any of them is crossed (or when the
// caller cancels). Every loop that can grow charges it; the first charge
// over a limit returns an *ExceededError naming the limit and its value,
// cancels the context with that error as its cause, and every later
// charge returns the same error, so the unit stops wherever it is and
// frees what it held.
//
// A nil *Budget is valid and unlimited, so code paths that run both fenced
// and unfenced need no special case.
package budget

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Limits are what a unit of work may use; a zero field is unlimited.
type Limits struct {
	// Memory bounds the bytes the unit holds at once (charged by Grow,
	// returned by Shrink).
	Memory int64
	// Rows bounds the rows (documents, records) the unit produces in all.
	Rows int64
	// Steps bounds the iterations of the unit's loops in all.
	Steps int64
	// Wall bounds the unit's run time.
	Wall time.Duration
	// Result bounds the bytes of the unit's result.
	Result int64
}

// ErrExceeded is matched (errors.Is) by every *ExceededError.
var ErrExceeded = errors.New("budget exceeded")

// ExceededError says which limit a unit crossed.
type ExceededError struct {
	// Unit names the unit of work ("query", "job", "bot call").
	Unit string
	// Limit names the limit: "memory", "rows", "steps", "run time" or
	// "result size".
	Limit string
	// Max is the limit's value and Used what the unit asked for, in
	// bytes, rows, steps or nanoseconds.
	Max, Used int64
}

// Error reads as one line: "query over its memory limit of 256 MB (asked for 301.2 MB)".
func (e *ExceededError) Error() string {
	if e.Limit == "run time" {
		return fmt.Sprintf("%s over its run time limit of %s", e.Unit, time.Duration(e.Max))
	}
	return fmt.Sprintf("%s over its %s limit of %s (reached %s)", e.Unit, e.Limit, e.format(e.Max), e.format(e.Used))
}

func (e *ExceededError) format(n int64) string {
	switch e.Limit {
	case "memory", "result size":
		return Bytes(n)
	}
	return fmt.Sprintf("%d %s", n, e.Limit)
}

// Is makes errors.Is(err, ErrExceeded) true.
func (e *ExceededError) Is(target error) bool { return target == ErrExceeded }

// Bytes formats a byte count for people: 512 B, 64 KB, 1.5 MB, 2 GB.
func Bytes(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return trim(float64(n)/k) + " KB"
	case n < k*k*k:
		return trim(float64(n)/(k*k)) + " MB"
	}
	return trim(float64(n)/(k*k*k)) + " GB"
}

func trim(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}

// Budget is the running account of one unit of work. Its methods are safe
// for concurrent use, and all of them accept a nil receiver (unlimited).
type Budget struct {
	unit   string
	limits Limits
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   func() bool

	held, peak, rows, steps, result atomic.Int64

	mu  sync.Mutex
	err error
}

// New starts a budget for a unit named unit ("query", "job") under
// parent: its context is cancelled when parent is, when the wall time
// runs out (with an *ExceededError as its cause), when a limit is crossed,
// and by Close.
func New(parent context.Context, unit string, l Limits) *Budget {
	b := &Budget{unit: unit, limits: l}
	b.ctx, b.cancel = context.WithCancelCause(parent)
	if l.Wall > 0 {
		t := time.AfterFunc(l.Wall, func() {
			b.exceed("run time", int64(l.Wall), int64(l.Wall))
		})
		b.stop = t.Stop
	}
	return b
}

// Context is cancelled when the unit must stop; context.Cause says why.
func (b *Budget) Context() context.Context {
	if b == nil {
		return context.Background()
	}
	return b.ctx
}

// Limits returns the budget's limits.
func (b *Budget) Limits() Limits {
	if b == nil {
		return Limits{}
	}
	return b.limits
}

// Close ends the unit: its context is cancelled and the wall timer
// stopped. The error it crossed, if any, stays in Err.
func (b *Budget) Close() {
	if b == nil {
		return
	}
	if b.stop != nil {
		b.stop()
	}
	b.cancel(context.Canceled)
}

// Err returns why the unit must stop: the limit it crossed, or its
// context's cause (the caller cancelled, a deadline passed); nil while it
// may go on.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	err := b.err
	b.mu.Unlock()
	if err != nil {
		return err
	}
	if b.ctx.Err() != nil {
		return context.Cause(b.ctx)
	}
	return nil
}

// exceed records the first limit crossed and cancels the context.
func (b *Budget) exceed(limit string, max, used int64) error {
	b.mu.Lock()
	if b.err == nil {
		b.err = &ExceededError{Unit: b.unit, Limit: limit, Max: max, Used: used}
	}
	err := b.err
	b.mu.Unlock()
	b.cancel(err)
	return err
}

// Grow charges n bytes the unit now holds. Over the memory limit it
// returns the *ExceededError (the bytes stay charged until Shrink).
func (b *Budget) Grow(n int64) error {
	if b == nil {
		return nil
	}
	held := b.held.Add(n)
	for {
		p := b.peak.Load()
		if held <= p || b.peak.CompareAndSwap(p, held) {
			break
		}
	}
	if b.limits.Memory > 0 && held > b.limits.Memory {
		return b.exceed("memory", b.limits.Memory, held)
	}
	return b.Err()
}

// Shrink returns n bytes the unit no longer holds.
func (b *Budget) Shrink(n int64) {
	if b != nil {
		b.held.Add(-n)
	}
}

// Held is the bytes the unit holds now; Peak the most it held.
func (b *Budget) Held() int64 {
	if b == nil {
		return 0
	}
	return b.held.Load()
}

// Peak is the most bytes the unit held at once.
func (b *Budget) Peak() int64 {
	if b == nil {
		return 0
	}
	return b.peak.Load()
}

// AddRows charges n rows the unit produced.
func (b *Budget) AddRows(n int64) error {
	if b == nil {
		return nil
	}
	rows := b.rows.Add(n)
	if b.limits.Rows > 0 && rows > b.limits.Rows {
		return b.exceed("rows", b.limits.Rows, rows)
	}
	return b.Err()
}

// checkEvery is how many steps pass between looks at the context, so that
// Step stays a few nanoseconds in the tightest loop.
const checkEvery = 256

// Step charges one iteration of a loop, and every few hundred steps looks
// whether the unit must stop (cancelled, out of time).
func (b *Budget) Step() error {
	if b == nil {
		return nil
	}
	n := b.steps.Add(1)
	if b.limits.Steps > 0 && n > b.limits.Steps {
		return b.exceed("steps", b.limits.Steps, n)
	}
	if n%checkEvery == 0 {
		return b.Err()
	}
	return nil
}

// Steps is the number of steps charged so far.
func (b *Budget) Steps() int64 {
	if b == nil {
		return 0
	}
	return b.steps.Load()
}

// AddResult charges n bytes of the unit's result.
func (b *Budget) AddResult(n int64) error {
	if b == nil {
		return nil
	}
	r := b.result.Add(n)
	if b.limits.Result > 0 && r > b.limits.Result {
		return b.exceed("result size", b.limits.Result, r)
	}
	return b.Err()
}

// Exceeded reports whether err is (or wraps) a crossed limit.
func Exceeded(err error) (*ExceededError, bool) {
	var e *ExceededError
	ok := errors.As(err, &e)
	return e, ok
}
