// Command client is the fabric operations shell: a Starlark REPL, a runner
// of .star workflows, and the classic command line whose commands are
// bundled Starlark scripts.
package main

import (
	"os"

	"github.com/fabricops/fabric/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
