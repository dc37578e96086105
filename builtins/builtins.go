// Package builtins holds the fabric's Starlark modules: one file per area
// (pipeline.go, ...). Each builtin unpacks its arguments, calls the fabric's
// Go packages, and returns data as Starlark values; none of them prints.
package builtins

import (
	"fmt"

	"go.starlark.net/starlark"
)

// Modules returns the fabric modules and builtins every script sees, by
// name; those that reach the fabric share env's connection.
func Modules(env *Env) starlark.StringDict {
	m := starlark.StringDict{
		"pipeline": env.pipelineModule(),
		"fabric":   env.fabricModule(),
		"object":   env.objectModule(),
		"dataset":  env.datasetModule(),
		"schema":   env.schemaModule(),
		"file_ops": fileOpsModule(),
		"frame":    frameModule(),
		"cfxql":    cfxqlModule(),
	}
	for k, v := range env.platform() {
		m[k] = v
	}
	for k, v := range env.jobBuiltins() {
		m[k] = v
	}
	return m
}

// optString unpacks an optional string argument that may be None.
type optString string

// Unpack implements starlark.Unpacker.
func (s *optString) Unpack(v starlark.Value) error {
	switch x := v.(type) {
	case starlark.NoneType:
		*s = ""
	case starlark.String:
		*s = optString(x)
	default:
		return fmt.Errorf("got %s, want string or None", v.Type())
	}
	return nil
}

// seconds unpacks a number of seconds given as an int or a float.
type seconds float64

// Unpack implements starlark.Unpacker.
func (s *seconds) Unpack(v starlark.Value) error {
	f, ok := starlark.AsFloat(v)
	if !ok {
		return fmt.Errorf("got %s, want a number of seconds", v.Type())
	}
	*s = seconds(f)
	return nil
}
