// Package data holds the shell's modules and members that need the data
// libraries (Arrow, Parquet, Excel): frame, cfxql, file_ops, graphdb,
// stream, logarchive, viz (the table viewer), the members of dataset, schema, pipeline and the job
// builtins that read or write tables, and bot_package's build and ut,
// which run bots over frames. The data build's main calls Register; the
// lean build does not link this package, and hands a program that reaches
// one of these to the data build (see cli).
package data

import (
	"sync"

	"github.com/fabricops/fabric/builtins"
	"go.starlark.net/starlark"
)

var once sync.Once

// Register adds this package's modules and members to every Env's
// predeclared names. Calling it again does nothing.
func Register() {
	once.Do(func() {
		builtins.Extend(
			builtins.Extension{Members: func(be *builtins.Env) starlark.StringDict {
				e := env{be}
				m := starlark.StringDict{
					"file_ops":   fileOpsModule(),
					"frame":      frameModule(),
					"cfxql":      cfxqlModule(),
					"graphdb":    e.graphdbModule(),
					"stream":     e.streamModule(),
					"logarchive": e.logarchiveModule(),
					"viz":        vizBuiltin(),
				}
				for k, v := range e.jobMembers() {
					m[k] = v
				}
				return m
			}},
			builtins.Extension{Module: "dataset", Members: func(be *builtins.Env) starlark.StringDict { return env{be}.datasetMembers() }},
			builtins.Extension{Module: "schema", Members: func(be *builtins.Env) starlark.StringDict { return env{be}.schemaMembers() }},
			builtins.Extension{Module: "pipeline", Members: func(*builtins.Env) starlark.StringDict { return pipelineMembers() }},
			builtins.Extension{Module: "bot_package", Members: func(be *builtins.Env) starlark.StringDict { return env{be}.botPackageMembers() }},
			builtins.Extension{Module: "demo", Members: func(be *builtins.Env) starlark.StringDict { return env{be}.demoMembers() }},
		)
	})
}
