package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/infra/natsserver"
	"github.com/fabricops/fabric/fabric/lib/safefile"
)

const serverConfigUsage = `usage: fabricd server-config --tenants a,b --credentials FILE [flags]

Prints the nats-server configuration of one server of the fabric: each
tenant an account with JetStream and its limits, and, with --cluster, the
server's part in a JetStream cluster. Run it once per server with the same
--credentials file, so that every server has the same tenants with the
same passwords; the file is created on first use (mode 0600) and a tenant
new to it gets a new random password. --network-configs DIR also writes
each tenant's network configuration (DIR/TENANT/fabric_network_config.json)
for the client URLs given in --urls.

  fabricd server-config --tenants acme,beta --credentials creds.json --name n1 \
      --cluster fabric --cluster-port 6222 --routes nats://n2:6222,nats://n3:6222 > n1.conf

Flags:
`

// credentials are the tenants of a fabric with their passwords, shared
// by the configurations of its servers.
type credentials struct {
	Tenants []bus.Tenant `json:"tenants"`
}

// runServerConfig runs "fabricd server-config".
func runServerConfig(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fabricd server-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, serverConfigUsage)
		fs.PrintDefaults()
	}
	tenants := fs.String("tenants", "", "comma-separated tenant names (required)")
	credsFile := fs.String("credentials", "", "JSON file of the tenants' credentials, shared by all servers (required; created when missing)")
	o := natsserver.ServerOptions{}
	fs.StringVar(&o.Name, "name", "fabric", "this server's name, unique in the cluster")
	fs.StringVar(&o.Host, "host", "0.0.0.0", "address to listen on for clients")
	fs.IntVar(&o.Port, "port", 4222, "port to listen on for clients")
	fs.StringVar(&o.StoreDir, "store-dir", "/var/lib/fabric/jetstream", "where JetStream keeps its files")
	cluster := fs.String("cluster", "", "name of the JetStream cluster (none: a single server)")
	clusterPort := fs.Int("cluster-port", 6222, "port to listen on for routes, with --cluster")
	routes := fs.String("routes", "", "comma-separated routes to the other servers (nats://host:6222), with --cluster")
	netDir := fs.String("network-configs", "", "directory to write each tenant's network configuration into")
	urls := fs.String("urls", "", "comma-separated client URLs of the servers, for --network-configs")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(msg string) int {
		fmt.Fprintf(stderr, "fabricd server-config: %s\n", msg)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	case *tenants == "":
		return usage("--tenants is required")
	case *credsFile == "":
		return usage("--credentials is required: the file that keeps the tenants' passwords the same on every server")
	case *netDir != "" && *urls == "":
		return usage("--network-configs needs --urls")
	case *cluster == "" && *routes != "":
		return usage("--routes goes with --cluster")
	}
	creds, err := loadCredentials(*credsFile, split(*tenants))
	if err != nil {
		fmt.Fprintf(stderr, "fabricd server-config: %v\n", err)
		return 1
	}
	o.Tenants = creds.Tenants
	if *cluster != "" {
		o.Cluster = &natsserver.Cluster{Name: *cluster, Port: *clusterPort, Routes: split(*routes)}
	}
	if *netDir != "" {
		for _, t := range creds.Tenants {
			cfg := &bus.Config{Tenant: t.Name, NATS: bus.NATSConfig{URLs: split(*urls), User: t.User, Password: t.Password}}
			if err := cfg.Save(filepath.Join(*netDir, t.Name, bus.ConfigFileName)); err != nil {
				fmt.Fprintf(stderr, "fabricd server-config: %v\n", err)
				return 1
			}
		}
	}
	fmt.Fprint(stdout, natsserver.ServerConfig(o))
	return 0
}

// loadCredentials reads the credentials file, adds the tenants it lacks
// (with new passwords) and writes it back when it changed.
func loadCredentials(path string, names []string) (*credentials, error) {
	var c credentials
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("%s is malformed: %v", path, err)
		}
	}
	known := map[string]bool{}
	for _, t := range c.Tenants {
		known[t.Name] = true
	}
	changed := false
	for _, n := range names {
		if known[n] {
			continue
		}
		t, err := bus.NewTenant(n)
		if err != nil {
			return nil, err
		}
		c.Tenants = append(c.Tenants, t)
		known[n] = true
		changed = true
	}
	if changed {
		out, _ := json.MarshalIndent(c, "", "  ")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		if err := safefile.WriteMode(path, 0o600, func(w io.Writer) error {
			_, err := w.Write(append(out, '\n'))
			return err
		}); err != nil {
			return nil, err
		}
	}
	// Only the tenants asked for go into this server's configuration.
	var asked []bus.Tenant
	for _, t := range c.Tenants {
		for _, n := range names {
			if t.Name == n {
				asked = append(asked, t)
			}
		}
	}
	return &credentials{Tenants: asked}, nil
}

func split(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
