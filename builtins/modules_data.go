//go:build !lean

package builtins

import "go.starlark.net/starlark"

// Lean is false: this client has every builtin and hands nothing over.
const Lean = false

// dataModules returns the modules and builtins named in DataNames.
func (e *Env) dataModules() starlark.StringDict {
	m := starlark.StringDict{
		"pipeline":   e.pipelineModule(),
		"object":     e.objectModule(),
		"dataset":    e.datasetModule(),
		"schema":     e.schemaModule(),
		"file_ops":   fileOpsModule(),
		"frame":      frameModule(),
		"cfxql":      cfxqlModule(),
		"graphdb":    e.graphdbModule(),
		"stream":     e.streamModule(),
		"logarchive": e.logarchiveModule(),
		"bundle":     e.bundleModule(),
	}
	for k, v := range e.jobBuiltins() {
		m[k] = v
	}
	return m
}
