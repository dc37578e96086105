package botpkg

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// The shell's scripts have a file module and the shell's os access; a
// bot has none. These stand-ins keep a module written for the shell
// compiling, and refuse every call with one line saying why.

// refused is a builtin that refuses its call.
func refused(name string) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return nil, fmt.Errorf("%s: refused: a bot has no access to the host's files; it reads its source through http", name)
	})
}

// fileModule is the shell's file module, refused.
var fileModule = func() *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: "file", Members: starlark.StringDict{}}
	for _, n := range []string{"read", "write", "append", "exists", "remove", "mkdir", "list", "join", "glob", "stat", "read_bytes"} {
		m.Members[n] = refused("file." + n)
	}
	return m
}()

// osModule is an os module, refused.
var osModule = func() *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: "os", Members: starlark.StringDict{}}
	for _, n := range []string{"getenv", "environ", "exec", "system", "listdir", "remove"} {
		m.Members[n] = refused("os." + n)
	}
	return m
}()
