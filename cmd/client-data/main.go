// Command client-data is the data build of the fabric operations shell:
// the client's every module, with those that need the data libraries
// (Arrow, Parquet, Excel: package builtins/data). The lean client
// (cmd/client) hands it the programs and commands that reach one of
// those; it runs everything itself.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/fabricops/fabric/builtins/data"
	"github.com/fabricops/fabric/cli"
	"github.com/fabricops/fabric/fabric/lib/cpuprofile"
)

func main() {
	// As the lean client: EPIPE instead of a kill, so that temporary
	// files are removed on the way out.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	data.Register()
	stop := cpuprofile.Start("CLIENT_CPUPROFILE") // where a data command's time goes
	code := cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
