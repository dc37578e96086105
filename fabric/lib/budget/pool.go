package budget

import (
	"fmt"
	"sync/atomic"
)

// Pool is memory shared by several units (the jobs of one worker): each
// takes what it holds from the pool as well as from its own budget, and
// a take that would pass the pool's size is refused, failing that unit
// only (the others go on, and nothing is cancelled). A nil *Pool is
// unlimited.
type Pool struct {
	what string
	max  int64
	held atomic.Int64
}

// NewPool makes a pool of max bytes for the units of what ("the worker's
// jobs").
func NewPool(what string, max int64) *Pool { return &Pool{what: what, max: max} }

// Take takes n bytes, or refuses with one line when the pool has not
// that much left (taking nothing).
func (p *Pool) Take(n int64) error {
	if p == nil || p.max <= 0 {
		return nil
	}
	for {
		held := p.held.Load()
		if held+n > p.max {
			return fmt.Errorf("%s hold %s, and %s more would pass their limit of %s", p.what, Bytes(held), Bytes(n), Bytes(p.max))
		}
		if p.held.CompareAndSwap(held, held+n) {
			return nil
		}
	}
}

// Fits reports whether n more bytes would fit, taking nothing.
func (p *Pool) Fits(n int64) error {
	if p == nil || p.max <= 0 {
		return nil
	}
	if held := p.held.Load(); held+n > p.max {
		return fmt.Errorf("%s hold %s, and %s more would pass their limit of %s", p.what, Bytes(held), Bytes(n), Bytes(p.max))
	}
	return nil
}

// Give gives back n bytes taken.
func (p *Pool) Give(n int64) {
	if p != nil && p.max > 0 {
		p.held.Add(-n)
	}
}

// Held is the bytes taken now.
func (p *Pool) Held() int64 {
	if p == nil {
		return 0
	}
	return p.held.Load()
}

// Max is the pool's size (0: unlimited).
func (p *Pool) Max() int64 {
	if p == nil {
		return 0
	}
	return p.max
}
