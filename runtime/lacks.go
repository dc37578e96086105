package runtime

import (
	"sort"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Lacks returns what the program src (named filename) reaches that this
// build's predeclared names lack, sorted: names ("frame") and members of
// modules it has ("dataset.get"), and help, whose list is the whole
// build's, when this build lacks some names (Options.Absent). Only the code the program can run
// counts: its statements, the functions and values of its own and of the
// modules it loads that these reach, found through the resolver's
// bindings (a local variable called like a builtin is not the builtin).
// A file that does not parse lacks nothing: running it reports the error.
func (rt *Runtime) Lacks(filename string, src []byte) []string {
	r := rt.newReach()
	if ix := r.index(filename, src); ix != nil {
		for _, stmt := range ix.f.Stmts {
			r.walk(ix, stmt)
		}
	}
	return r.result()
}

// FuncLacks is Lacks for a function of a module this runtime has run (a
// command's): what the function's body reaches.
func (rt *Runtime) FuncLacks(fn starlark.Callable) []string {
	f, ok := fn.(*starlark.Function)
	if !ok {
		return nil
	}
	pos := f.Position()
	if !strings.HasPrefix(pos.Filename(), BundlePrefix) || rt.diskCache == nil {
		return rt.funcLacks(f, pos)
	}
	// A bundled command's needs are the build's: kept across processes,
	// so that a command runs without parsing its script.
	key := []string{"lacks", rt.signature(), pos.String(), f.Name()}
	const head = "lacks\n"
	if data, ok := rt.diskCache.Get(key...); ok && strings.HasPrefix(string(data), head) {
		if names := strings.TrimPrefix(string(data), head); names != "" {
			return strings.Split(names, "\n")
		}
		return nil
	}
	lacks := rt.funcLacks(f, pos)
	rt.diskCache.Put([]byte(head+strings.Join(lacks, "\n")), key...)
	return lacks
}

// funcLacks is FuncLacks worked out from the function's source.
func (rt *Runtime) funcLacks(f *starlark.Function, pos syntax.Position) []string {
	r := rt.newReach()
	ix := r.index(pos.Filename(), nil)
	if ix == nil {
		return nil
	}
	syntax.Walk(ix.f, func(n syntax.Node) bool {
		switch d := n.(type) {
		case *syntax.DefStmt:
			if d.Def.Line == pos.Line && d.Name.Name == f.Name() {
				r.walk(ix, d)
				return false
			}
		case *syntax.LambdaExpr:
			if d.Lambda.Line == pos.Line && d.Lambda.Col == pos.Col {
				r.walk(ix, d)
				return false
			}
		}
		return true
	})
	return r.result()
}

// reach is one walk of what a program reaches.
type reach struct {
	rt    *Runtime
	lacks map[string]bool
	files map[string]*fileIndex
	seen  map[syntax.Node]bool
	// followed are the loaded names already followed (a load cycle
	// would follow them for ever).
	followed map[loaded]bool
}

// fileIndex is a parsed, resolved module with its top-level bindings.
type fileIndex struct {
	key string
	f   *syntax.File
	// loads are the identifiers load statements bind, with the module
	// key and the name they bind.
	loads map[*syntax.Ident]loaded
	// defs are the top-level statements that bind each global name.
	defs map[string][]syntax.Stmt
}

type loaded struct{ key, name string }

func (rt *Runtime) newReach() *reach {
	return &reach{rt: rt, lacks: map[string]bool{}, files: map[string]*fileIndex{}, seen: map[syntax.Node]bool{}, followed: map[loaded]bool{}}
}

func (r *reach) result() []string {
	out := make([]string, 0, len(r.lacks))
	for k := range r.lacks {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// index parses and indexes the module key (src, or its source when nil);
// nil when it cannot be read or parsed.
func (r *reach) index(key string, src []byte) *fileIndex {
	if ix, ok := r.files[key]; ok {
		return ix
	}
	r.files[key] = nil
	f := r.rt.parsed(key, src)
	if f == nil {
		return nil
	}
	ix := &fileIndex{key: key, f: f, loads: map[*syntax.Ident]loaded{}, defs: map[string][]syntax.Stmt{}}
	var top func(stmts []syntax.Stmt)
	top = func(stmts []syntax.Stmt) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *syntax.LoadStmt:
				name, _ := s.Module.Value.(string)
				mod, err := r.rt.Resolve(key, name)
				if err != nil {
					continue
				}
				for i, to := range s.To {
					ix.loads[to] = loaded{mod, s.From[i].Name}
				}
			case *syntax.DefStmt:
				ix.defs[s.Name.Name] = append(ix.defs[s.Name.Name], s)
			case *syntax.AssignStmt:
				for _, id := range boundIdents(s.LHS) {
					ix.defs[id.Name] = append(ix.defs[id.Name], s)
				}
			case *syntax.ForStmt:
				for _, id := range boundIdents(s.Vars) {
					ix.defs[id.Name] = append(ix.defs[id.Name], s)
				}
				top(s.Body)
			case *syntax.WhileStmt:
				top(s.Body)
			case *syntax.IfStmt:
				top(s.True)
				top(s.False)
			}
		}
	}
	top(f.Stmts)
	r.files[key] = ix
	return ix
}

// boundIdents returns the identifiers an assignment's or loop's left
// side binds.
func boundIdents(e syntax.Expr) []*syntax.Ident {
	switch e := e.(type) {
	case *syntax.Ident:
		return []*syntax.Ident{e}
	case *syntax.TupleExpr:
		var out []*syntax.Ident
		for _, x := range e.List {
			out = append(out, boundIdents(x)...)
		}
		return out
	case *syntax.ListExpr:
		var out []*syntax.Ident
		for _, x := range e.List {
			out = append(out, boundIdents(x)...)
		}
		return out
	case *syntax.ParenExpr:
		return boundIdents(e.X)
	}
	return nil
}

// walk visits what node reaches in the module ix.
func (r *reach) walk(ix *fileIndex, node syntax.Node) {
	if r.seen[node] {
		return
	}
	r.seen[node] = true
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Ident:
			r.use(ix, n)
		case *syntax.DotExpr:
			if id, ok := n.X.(*syntax.Ident); ok && scope(id) == resolve.Predeclared {
				if v, has := r.rt.predeclared[id.Name]; has {
					if !hasAttr(v, n.Name.Name) {
						r.lacks[id.Name+"."+n.Name.Name] = true
					}
				}
			}
		case *syntax.LoadStmt:
			for _, to := range n.To {
				r.follow(ix.loads[to])
			}
			return false
		}
		return true
	})
}

// use records or follows one identifier's use.
func (r *reach) use(ix *fileIndex, id *syntax.Ident) {
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil {
		return
	}
	switch b.Scope {
	case resolve.Predeclared:
		if !r.rt.predeclared.Has(id.Name) || (id.Name == "help" && r.rt.absent != nil) {
			// help() lists the whole build's modules, which a build
			// that lacks some cannot: it is the whole build's to
			// answer, so that every way in shows one list.
			r.lacks[id.Name] = true
		}
		return
	case resolve.Universal:
		return
	}
	if l, ok := ix.loads[b.First]; ok {
		r.follow(l)
		return
	}
	if b.Scope == resolve.Global {
		for _, s := range ix.defs[id.Name] {
			r.walk(ix, s)
		}
	}
}

// follow walks what a loaded name is bound to in its module.
func (r *reach) follow(l loaded) {
	if l.key == "" || r.followed[l] {
		return
	}
	r.followed[l] = true
	ix := r.index(l.key, nil)
	if ix == nil {
		return
	}
	for to, from := range ix.loads {
		if to.Name == l.name {
			r.follow(from)
		}
	}
	for _, s := range ix.defs[l.name] {
		r.walk(ix, s)
	}
}

func scope(id *syntax.Ident) resolve.Scope {
	if b, ok := id.Binding.(*resolve.Binding); ok {
		return b.Scope
	}
	return resolve.Undefined
}

// hasAttr reports whether v has the attribute name.
func hasAttr(v starlark.Value, name string) bool {
	h, ok := v.(starlark.HasAttrs)
	if !ok {
		return false
	}
	a, err := h.Attr(name)
	return err == nil && a != nil
}
