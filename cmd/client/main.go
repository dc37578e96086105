// Command client is the fabric operations shell: a Starlark REPL, a runner
// of .star workflows, and the classic command line whose commands are
// bundled Starlark scripts. This is its lean build: it links none of the
// data libraries, so that it starts in a few milliseconds, and hands a
// program or command that reaches a module only the data build has
// (cmd/client-data) to that build.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/fabricops/fabric/cli"
)

func main() {
	// A reader that goes away (client dataset get | head) makes writes
	// fail with EPIPE instead of killing the process, so that temporary
	// files are removed on the way out; cli.Main then exits quietly.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	cli.HandOffTo = cli.DataClient
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
