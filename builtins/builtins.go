// Package builtins holds the fabric's Starlark modules: one file per area
// (pipeline.go, ...). Each builtin unpacks its arguments, calls the fabric's
// Go packages, and returns data as Starlark values; none of them prints.
package builtins

import "go.starlark.net/starlark"

// Modules returns the fabric modules every script sees, by name.
func Modules() starlark.StringDict {
	return starlark.StringDict{
		"pipeline": pipelineModule(),
	}
}
