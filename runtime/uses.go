package runtime

import (
	"go.starlark.net/syntax"
)

// Uses reports whether a program mentions any of names: the script's own
// source or any module it loads, bundled or on disk, as an identifier (a
// name in a string or a comment, a field (args.output) or a keyword
// argument (f(output = 1)) does not count; a local variable of that name
// does, which errs on the safe side). A file that does not parse
// mentions nothing: running it reports the error.
func (rt *Runtime) Uses(filename string, src []byte, names map[string]bool) bool {
	seen := map[string]bool{}
	var uses func(filename string, src []byte) bool
	uses = func(filename string, src []byte) bool {
		if seen[filename] {
			return false
		}
		seen[filename] = true
		f, err := Dialect.Parse(filename, src, 0)
		if err != nil {
			return false
		}
		found := false
		var visit func(n syntax.Node) bool
		visit = func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.Ident:
				found = found || names[x.Name]
			case *syntax.DotExpr:
				// args.output names a field, not the builtin output.
				syntax.Walk(x.X, visit)
				return false
			case *syntax.CallExpr:
				// f(output = x) names a parameter, not the builtin.
				syntax.Walk(x.Fn, visit)
				for _, a := range x.Args {
					if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
						syntax.Walk(b.Y, visit)
					} else {
						syntax.Walk(a, visit)
					}
				}
				return false
			}
			return !found
		}
		syntax.Walk(f, visit)
		if found {
			return true
		}
		for _, stmt := range f.Stmts {
			load, ok := stmt.(*syntax.LoadStmt)
			if !ok {
				continue
			}
			name, _ := load.Module.Value.(string)
			key, err := rt.Resolve(filename, name)
			if err != nil {
				continue
			}
			if src, err := rt.read(key); err == nil && uses(key, src) {
				return true
			}
		}
		return false
	}
	return uses(filename, src)
}

// ModuleUses is Uses for a module key (a bundled script's BundlePrefix+path
// or a path on disk, as a command's File names it).
func (rt *Runtime) ModuleUses(key string, names map[string]bool) bool {
	src, err := rt.read(key)
	return err == nil && rt.Uses(key, src, names)
}
