package host

import (
	"context"

	"go.starlark.net/starlark"
)

const ctxKey = "fabric.context"

// threadContext is a thread's context and the function that ends it.
type threadContext struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// AttachContext gives thread a context that Interrupt ends. Call it when
// the thread is made, before it runs.
func AttachContext(thread *starlark.Thread) {
	ctx, cancel := context.WithCancel(context.Background())
	thread.SetLocal(ctxKey, &threadContext{ctx, cancel})
}

// Context returns the thread's context: builtins that wait (for a job,
// a stream) stop when it ends, on Ctrl-C. A thread without one gets a
// context that never ends.
func Context(thread *starlark.Thread) context.Context {
	if thread != nil {
		if tc, ok := thread.Local(ctxKey).(*threadContext); ok {
			return tc.ctx
		}
	}
	return context.Background()
}

// Interrupt ends the thread's context.
func Interrupt(thread *starlark.Thread) {
	if tc, ok := thread.Local(ctxKey).(*threadContext); ok {
		tc.cancel()
	}
}
