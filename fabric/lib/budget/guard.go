package budget

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// PanicError is a panic recovered by Guard: the unit fails with it, and
// the process goes on serving the others.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the panicking goroutine's stack, for the process's log
	// (never for the tenant: it would show the process's insides).
	Stack []byte
}

// Error reads as one line.
func (e *PanicError) Error() string { return fmt.Sprintf("internal error: %v", e.Value) }

// Guard runs fn and turns a panic in it into a *PanicError. It is the
// last line of defence of a request handler, never the first: parsers
// and evaluators must not panic on any input.
func Guard(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn()
}

// ErrBusy is matched (errors.Is) by the error of a Gate that is full.
var ErrBusy = errors.New("too many at once")

// Gate lets at most n units in at once and up to queue more wait for a
// place; past that, Enter refuses at once. It fences what one tenant may
// run concurrently (queries, connections).
type Gate struct {
	what  string
	slots chan struct{}
	queue chan struct{}
}

// NewGate makes a gate for n units at once and queue waiting, naming them
// what ("queries", "connections") in its errors.
func NewGate(what string, n, queue int) *Gate {
	if n < 1 {
		n = 1
	}
	if queue < 0 {
		queue = 0
	}
	return &Gate{what: what, slots: make(chan struct{}, n), queue: make(chan struct{}, n+queue)}
}

// Enter takes a place, waiting while the queue has room and ctx allows;
// release gives it back (once). A full gate returns an error matching
// ErrBusy at once.
func (g *Gate) Enter(ctx context.Context) (release func(), err error) {
	select {
	case g.queue <- struct{}{}:
	default:
		return nil, fmt.Errorf("%w: %d %s running and %d waiting, the most allowed", ErrBusy, cap(g.slots), g.what, cap(g.queue)-cap(g.slots))
	}
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		<-g.queue
		return nil, fmt.Errorf("waiting for a place among %d %s: %w", cap(g.slots), g.what, context.Cause(ctx))
	}
	return g.releaser(), nil
}

// releaser gives back a place taken, once however often it is called.
func (g *Gate) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			<-g.slots
			<-g.queue
		})
	}
}

// TryEnter takes a place only if one is free now.
func (g *Gate) TryEnter() (release func(), ok bool) {
	select {
	case g.queue <- struct{}{}:
	default:
		return nil, false
	}
	select {
	case g.slots <- struct{}{}:
	default:
		<-g.queue
		return nil, false
	}
	return g.releaser(), true
}

// InUse is the number of units inside the gate now.
func (g *Gate) InUse() int { return len(g.slots) }
