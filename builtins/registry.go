package builtins

import (
	"context"
	"github.com/fabricops/fabric/fabric/api"
	"io"
	"sort"
	"sync"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Extension is what a package of modules adds to the predeclared names:
// members of a module (Module; made when no package has it yet, with Doc
// as its documentation), or top-level names (Module empty).
type Extension struct {
	Module  string
	Doc     string
	Members func(*Env) starlark.StringDict
}

var (
	extMu      sync.Mutex
	extensions []Extension
)

// Extend registers modules or members for every Env: the data build's
// main calls the data package's Register, which calls Extend, before
// the shell starts. A member or name registered twice is a programming
// error: Extend panics at start-up rather than let one shadow the other.
func Extend(ext ...Extension) {
	extMu.Lock()
	defer extMu.Unlock()
	extensions = append(extensions, ext...)
}

// extend merges the registered extensions into m.
func extend(env *Env, m starlark.StringDict) {
	extMu.Lock()
	exts := append([]Extension{}, extensions...)
	extMu.Unlock()
	for _, x := range exts {
		members := x.Members(env)
		if x.Module == "" {
			for k, v := range members {
				if _, dup := m[k]; dup {
					panic("builtins: " + k + " registered twice")
				}
				m[k] = v
			}
			continue
		}
		mod, _ := m[x.Module].(*starlarkstruct.Module)
		if mod == nil {
			if _, dup := m[x.Module]; dup {
				panic("builtins: " + x.Module + " is no module to extend")
			}
			mod = &starlarkstruct.Module{Name: x.Module, Members: starlark.StringDict{}}
			if x.Doc != "" {
				doc.Register(x.Module, x.Doc)
			}
			m[x.Module] = mod
		} else {
			// A module of the lean build is copied before it grows: every
			// Env makes its own, but none is shared across builds.
			mod = &starlarkstruct.Module{Name: mod.Name, Members: copyDict(mod.Members)}
			m[x.Module] = mod
		}
		for k, v := range members {
			if _, dup := mod.Members[k]; dup {
				panic("builtins: " + x.Module + "." + k + " registered twice")
			}
			mod.Members[k] = v
		}
	}
}

func copyDict(d starlark.StringDict) starlark.StringDict {
	out := make(starlark.StringDict, len(d))
	for k, v := range d {
		out[k] = v
	}
	return out
}

// Names returns the predeclared names and module members registered by
// extensions, "module.member" or "name", sorted: what a build with them
// has that the lean build has not.
func Names(env *Env) []string {
	extMu.Lock()
	exts := append([]Extension{}, extensions...)
	extMu.Unlock()
	var out []string
	for _, x := range exts {
		for k := range x.Members(env) {
			if x.Module != "" {
				k = x.Module + "." + k
			}
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Func is the Go signature of a Starlark builtin.
type Func = builtinFunc

// OptString unpacks an optional string argument that may be None.
type OptString = optString

// Call runs fn with the fabric's client; errors are named after b (see
// call).
func (e *Env) Call(thread *starlark.Thread, b *starlark.Builtin, fn func(ctx context.Context, c *client.Client) (any, error)) (starlark.Value, error) {
	return e.call(thread, b, fn)
}

// ListCall makes a builtin of no arguments that returns what list gets.
func (e *Env) ListCall(list func(ctx context.Context, c *client.Client) (any, error)) Func {
	return e.listCall(list)
}

// NameCall makes a builtin of one argument, name, that returns what do
// gets.
func (e *Env) NameCall(do func(ctx context.Context, c *client.Client, name string) (any, error)) Func {
	return e.nameCall(do)
}

// Connect returns the fabric's client for b, its failure named after b.
func (e *Env) Connect(b *starlark.Builtin) (*client.Client, error) { return e.connect(b) }

// Fail formats a builtin's error as "name: message".
func Fail(name string, err error) error { return fail(name, err) }

// DictOf converts a wire struct to a dict, with front keys before its
// fields and back keys after them.
func DictOf(v any, front, back []starlark.Tuple) (*starlark.Dict, error) {
	return dictOf(v, front, back)
}

// TrimPathError drops Go's "open" wrapping detail down to "open PATH:
// reason".
func TrimPathError(err error) error { return trimPathError(err) }

// WithProgress reads r with a progress line on a terminal's stderr (see
// progress); Finish ends the line.
func WithProgress(thread *starlark.Thread, r io.Reader, label string, total int64) interface {
	io.Reader
	Finish()
} {
	return withProgress(thread, r, label, total)
}

// HTTPGet opens an http/https URL for reading, with its size (0 when
// unknown); the caller closes it.
func HTTPGet(ctx context.Context, url string) (io.ReadCloser, int64, error) { return httpGet(ctx, url) }

// StartBot starts a job of one bot of the workers (see run_bot).
func StartBot(ctx context.Context, c *client.Client, tag string, keys []string, params map[string]string, pl client.Placement) (api.StartResponse, error) {
	return startBot(ctx, c, tag, keys, params, pl)
}

// TimeoutContext is the thread's context, bounded by timeout (seconds,
// or None for no bound), for builtins that wait.
func TimeoutContext(thread *starlark.Thread, b *starlark.Builtin, timeout starlark.Value) (context.Context, context.CancelFunc, error) {
	return timeoutContext(thread, b, timeout)
}

// Bounded names a bounded dataset's drafts by their names, not their
// paths, as the bounded dataset builtins show them.
func Bounded(b api.BoundedDataset) api.BoundedDataset { return bounded(b) }
