// Package stdlib provides the shell's standard Starlark modules: json, yaml,
// csv, time, math, re, file, env and hash (from Modules), sys (from
// SysModule, since its argv belongs to one run) and the input builtin.
//
// Every builtin is created through the doc package, named by its qualified
// name ("json.encode"), so that help() can show its signature and
// description, and reports errors prefixed with that name. Modules that do
// IO go through the thread's host.IO, never the process's streams.
package stdlib

import (
	"sync"

	"go.starlark.net/starlark"
)

var (
	modulesOnce sync.Once
	modules     starlark.StringDict
)

// Modules returns the standard modules by name. The module values are
// built once and shared; they are immutable.
func Modules() starlark.StringDict {
	modulesOnce.Do(func() {
		modules = starlark.StringDict{
			"json": jsonModule(),
			"yaml": yamlModule(),
			"csv":  csvModule(),
			"time": timeModule(),
			"math": mathModule(),
			"re":   reModule(),
			"file": fileModule(),
			"env":  envModule(),
			"hash": hashModule(),
		}
		modules.Freeze()
	})
	out := make(starlark.StringDict, len(modules))
	for k, v := range modules {
		out[k] = v
	}
	return out
}
