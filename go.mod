module github.com/fabricops/fabric

go 1.26.8

require (
	github.com/chzyer/readline v1.5.1 // indirect
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5 // indirect
	golang.org/x/sys v0.42.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
