// Package builtins holds the fabric's Starlark modules: one file per area
// (pipeline.go, ...). Each builtin unpacks its arguments, calls the fabric's
// Go packages, and returns data as Starlark values; none of them prints.
//
// This package is the lean build's: nothing in it links the data
// libraries (Arrow, Parquet, Excel), so a client of it alone (cmd/client)
// starts in a few milliseconds. The modules and members that need them
// are package builtins/data's, which registers them with Extend; the data
// build (cmd/client-data) links both. What a program needs that a build
// lacks is found from what the build registered (runtime.Lacks), never
// from a list of names.
package builtins

import (
	"fmt"
	"os"

	"go.starlark.net/starlark"
)

// Modules returns the fabric modules and builtins every script sees, by
// name: this package's (the lean build's), with what the build's other
// packages registered (Extend) merged in. Those that reach the fabric
// share env's connection.
func Modules(env *Env) starlark.StringDict {
	m := starlark.StringDict{"fabric": env.fabricModule(), "stored": env.storedModule(), "secret": env.secretModule(),
		"project": env.projectModule(), "demo": env.demoModule(), "pipeline": env.pipelineModule(), "dataset": env.datasetModule(),
		"schema": env.schemaModule(), "object": env.objectModule(), "bundle": env.bundleModule(), "pack": env.packModule(), "library": env.libraryModule()}
	for _, all := range []starlark.StringDict{env.artifactModules(), env.platform(), env.jobBuiltins(), env.podOps()} {
		for k, v := range all {
			m[k] = v
		}
	}
	m["bot_package"] = env.botPackageModule()
	m["client_update"] = env.clientUpdateModule()
	m["upgrade"] = env.upgradeModule()
	extend(env, m)
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

// trimPathError drops Go's "open" wrapping detail down to "open PATH: reason".
func trimPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s %s: %v", pe.Op, pe.Path, pe.Err)
	}
	return err
}
