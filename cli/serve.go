package cli

import (
	"flag"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/fabricops/fabric/fabric/local"
	"github.com/fabricops/fabric/runtime"
)

// serve runs the local fabric in the foreground: the background process
// that "client fabric up" starts. It is not a script: it is the fabric,
// not a command of the shell.
func (sh *shell) serve(args []string) int {
	fs := flag.NewFlagSet("fabric serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tenants := fs.String("tenants", local.DefaultTenant, "comma-separated tenant names")
	workers := fs.Int("workers", local.DefaultWorkers, "workers per tenant")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(sh.io.Stdout, serveUsage)
			return runtime.ExitOK
		}
		return sh.usageError(err.Error(), strings.TrimSpace(serveUsage))
	}
	var names []string
	for _, t := range strings.Split(*tenants, ",") {
		if t = strings.TrimSpace(t); t != "" {
			names = append(names, t)
		}
	}
	logger := log.New(sh.io.Stderr, "", log.LstdFlags)
	err := local.Serve(Home(), local.ServeOptions{Tenants: names, Workers: *workers, Version: Version, Logger: logger})
	if err != nil {
		logger.Printf("error: %v", err)
		return runtime.ExitFailure
	}
	return runtime.ExitOK
}

const serveUsage = `usage: client fabric serve [--tenants a,b] [--workers N]

Runs the local fabric in the foreground until SIGTERM or SIGINT. 'client
fabric up' starts it in the background; use that instead.
`
