package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fabricops/fabric/fabric/infra/bus"

	"github.com/fabricops/fabric/fabric/infra/local"
	"github.com/fabricops/fabric/fabric/pods/embedded"
)

const localUsage = `usage: fabricd local [--home DIR] [--tenants a,b] [--workers N] [--graphdb-url URL --graphdb-user NAME]

Runs the local fabric in the foreground until SIGTERM or SIGINT: an
embedded NATS server on 127.0.0.1 with its data under DIR/local, and each
tenant's pods. 'client fabric up' starts it in the background; use that
instead. DIR defaults to $FABRIC_HOME, then ~/.fabric.

Each tenant gets an embedded graph database unless --graphdb-url names a
real ArangoDB (its password in FABRIC_GRAPHDB_PASSWORD); the choice is
kept for later runs, and --graphdb-url embedded goes back.

Flags:
`

// runLocal runs "fabricd local": the embedded fabric of one machine.
func runLocal(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("fabricd local", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, localUsage)
		fs.PrintDefaults()
	}
	home := fs.String("home", local.Home(), "the fabric's home directory")
	tenants := fs.String("tenants", local.DefaultTenant, "comma-separated tenant names")
	workers := fs.Int("workers", local.DefaultWorkers, "workers per tenant")
	graphURL := fs.String("graphdb-url", "", "a real ArangoDB for every tenant (embedded: the local store; default: as last time)")
	graphUser := fs.String("graphdb-user", "root", "the ArangoDB user, with --graphdb-url")
	podIDsFile := fs.String("pod-ids-file", "", "a JSON file of each tenant's pod ids, which an upgrade writes for the new build (read, then removed)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fabricd local: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	names := split(*tenants)
	logger := log.New(stderr, "", log.LstdFlags)
	// Everything the fabric writes under its home is its owner's only:
	// the libraries' files too (nats-server's log and store, Pebble's).
	syscall.Umask(0o077)
	if err := local.MakePrivate(*home); err != nil {
		logger.Printf("error: making the files under %s private: %v", local.Dir(*home), err)
		return 1
	}
	so := embedded.ServeOptions{Tenants: names, Workers: *workers, Version: Version, Logger: logger}
	if *podIDsFile != "" {
		ids, err := readPodIDs(*podIDsFile)
		if err != nil {
			logger.Printf("warning: %v (the pods get new ids)", err)
		}
		so.PodIDs = ids
	}
	// An upgrade request runs the fabricd of a build of the local
	// fabric's builds directory in this process's place, once every pod
	// stopped and the server shut down: the same pid, arguments and
	// environment, the pods' ids in a file.
	so.Upgrade = func(dir string, ids map[string][]string) error {
		file := filepath.Join(local.Dir(*home), "pod-ids.json")
		if err := writePodIDs(file, ids); err != nil {
			return err
		}
		return syscall.Exec(filepath.Join(dir, "fabricd"), append([]string{filepath.Join(dir, "fabricd"), "local"}, append(withoutFlag(args, "pod-ids-file"), "--pod-ids-file", file)...), os.Environ())
	}
	switch *graphURL {
	case "":
	case "embedded":
		so.GraphDB = &bus.GraphDBConfig{}
	default:
		if u, err := url.Parse(*graphURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			fmt.Fprintf(stderr, "fabricd local: --graphdb-url %q: want http(s)://host:port or embedded\n", *graphURL)
			return 2
		}
		so.GraphDB = &bus.GraphDBConfig{URL: *graphURL, User: *graphUser, Password: os.Getenv("FABRIC_GRAPHDB_PASSWORD")}
	}
	err := embedded.Serve(*home, so)
	if err != nil {
		logger.Printf("error: %v", err)
		return 1
	}
	return 0
}
