package cli

import "github.com/fabricops/fabric/builtins/data"

// The shell in these tests is the data build: every module.
func init() { data.Register() }
