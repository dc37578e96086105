package runtime

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Check parses and resolves a script without running it, and does the same
// for every module it loads, reporting every error with its position.
func (rt *Runtime) Check(filename string, src []byte) []error {
	c := &checker{rt: rt, seen: map[string]bool{}}
	c.file(filename, src)
	return c.errs
}

type checker struct {
	rt   *Runtime
	seen map[string]bool
	errs []error
}

func (c *checker) file(filename string, src []byte) {
	if c.seen[filename] {
		return
	}
	c.seen[filename] = true
	isPredeclared := func(name string) bool { return c.rt.predeclared.Has(name) }
	f, _, err := starlark.SourceProgramOptions(Dialect, filename, src, isPredeclared)
	if f == nil {
		// Nothing parsed: a syntax error.
		c.errs = append(c.errs, fmt.Errorf("%s", Backtrace(err)))
		return
	}
	if err != nil {
		for _, line := range strings.Split(Backtrace(err), "\n") {
			c.errs = append(c.errs, fmt.Errorf("%s", line))
		}
	}
	for _, stmt := range f.Stmts {
		load, ok := stmt.(*syntax.LoadStmt)
		if !ok {
			continue
		}
		name, _ := load.Module.Value.(string)
		key, err := c.rt.Resolve(filename, name)
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("%s: %v", load.Module.TokenPos, err))
			continue
		}
		src, err := c.rt.read(key)
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("%s: %v", load.Module.TokenPos, err))
			continue
		}
		c.file(key, src)
	}
}
