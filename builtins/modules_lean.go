//go:build lean

package builtins

import (
	"fmt"

	"go.starlark.net/starlark"
)

// Lean is true: this client was built without the data libraries, and
// the shell hands programs that use DataNames to the full client.
const Lean = true

// dataModules returns a stand-in for each name of DataNames, so that
// scripts that mention them still compile (for help and declarations).
// The shell never runs code that uses one here; if it did, the stand-in
// says so instead of acting.
func (e *Env) dataModules() starlark.StringDict {
	m := starlark.StringDict{}
	for _, name := range DataNames {
		m[name] = &standIn{name: name, consts: moduleConsts[name]}
	}
	return m
}

// standIn is a name of DataNames in the lean client: its constants are
// real, any other attribute is another stand-in, and calling one fails.
type standIn struct {
	name   string
	consts starlark.StringDict
}

func (s *standIn) String() string        { return "<" + s.name + ">" }
func (s *standIn) Type() string          { return "builtin_function_or_method" }
func (s *standIn) Freeze()               {}
func (s *standIn) Truth() starlark.Bool  { return true }
func (s *standIn) Hash() (uint32, error) { return starlark.String(s.name).Hash() }
func (s *standIn) Name() string          { return s.name }

// Attr implements starlark.HasAttrs.
func (s *standIn) Attr(name string) (starlark.Value, error) {
	if v, ok := s.consts[name]; ok {
		return v, nil
	}
	return &standIn{name: s.name + "." + name}, nil
}

// AttrNames implements starlark.HasAttrs.
func (s *standIn) AttrNames() []string { return s.consts.Keys() }

// CallInternal implements starlark.Callable.
func (s *standIn) CallInternal(*starlark.Thread, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return nil, fmt.Errorf("%s needs the data libraries: run it with client-data (this client was built lean)", s.name)
}
