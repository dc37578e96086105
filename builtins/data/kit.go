package data

import (
	"github.com/fabricops/fabric/builtins"
)

// env is the shell's environment as the data modules use it: the lean
// build's, whose helpers they share.
type env struct{ *builtins.Env }

// builtinFunc is the Go signature of a Starlark builtin.
type builtinFunc = builtins.Func

// optString unpacks an optional string argument that may be None.
type optString = builtins.OptString
