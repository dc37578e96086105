// Package builtins holds the fabric's Starlark modules: one file per area
// (pipeline.go, ...). Each builtin unpacks its arguments, calls the fabric's
// Go packages, and returns data as Starlark values; none of them prints.
//
// The modules that need the data libraries (Arrow, Parquet, Excel) are in
// files built without the "lean" tag. A client built with it (bin/client)
// starts in a few milliseconds: it has stubs for those names (DataNames),
// and the shell hands a program that uses one to the full client
// (bin/client-data) before running it.
package builtins

import (
	"fmt"
	"os"

	"github.com/fabricops/fabric/fabric/lib/pipeline"
	"go.starlark.net/starlark"
)

// DataNames are the predeclared names whose builtins need the data
// libraries (Arrow, Parquet, Excel): every module and builtin but the
// platform's (pods, healthcheck, agents, pod_controller), the local
// fabric's (fabric), projects, secrets, the artifact kinds and their
// backups.
var DataNames = []string{
	"pipeline", "object", "dataset", "schema", "file_ops", "frame", "cfxql", "graphdb", "stream", "logarchive", "bundle",
	"run", "run_bot", "verify_pipeline", "jobs", "job", "wait", "evict", "output", "output_export", "purge_outputs", "watch_traces", "watch_logs", "watch_changes",
}

// moduleConsts are the constants of the data modules, which scripts read
// when they declare their commands (help texts): both builds have them.
var moduleConsts = map[string]starlark.StringDict{
	"pipeline": {
		"CANONICAL_FORM": starlark.String(pipeline.CanonicalForm),
		"TEXT_FORM":      starlark.String(pipeline.TextForm),
	},
}

// Modules returns the fabric modules and builtins every script sees, by
// name; those that reach the fabric share env's connection.
func Modules(env *Env) starlark.StringDict {
	m := starlark.StringDict{"fabric": env.fabricModule(), "stored": env.storedModule(), "secret": env.secretModule(),
		"project": env.projectModule(), "demo": env.demoModule()}
	for k, v := range env.artifactModules() {
		m[k] = v
	}
	for k, v := range env.platform() {
		m[k] = v
	}
	for k, v := range env.dataModules() {
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

// IsModuleConst reports whether module's attribute attr is one of the
// constants both builds have (see moduleConsts).
func IsModuleConst(module, attr string) bool {
	_, ok := moduleConsts[module][attr]
	return ok
}

// trimPathError drops Go's "open" wrapping detail down to "open PATH: reason".
func trimPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s %s: %v", pe.Op, pe.Path, pe.Err)
	}
	return err
}
