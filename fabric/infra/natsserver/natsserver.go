// Package natsserver is the fabric's own NATS server: the configuration
// of a server whose accounts are the tenants (rendered the same for the
// embedded server and for a standalone nats-server), and an embedded
// nats-server started from it. The local fabric (fabricd local) and the
// tests run it; the shell never links it.
package natsserver

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/nats-io/nats-server/v2/server"
)

// ServerOptions configures a fabric's NATS server.
type ServerOptions struct {
	// Name of the server.
	Name string
	// Host and Port to listen on (Port 0: any free port).
	Host string
	Port int
	// StoreDir is where JetStream keeps its files.
	StoreDir string
	// Tenants become accounts with JetStream enabled.
	Tenants []bus.Tenant
	// LogFile, when set, receives the server's log; otherwise it logs
	// nothing.
	LogFile string
	// PortsFileDir, when set, is where a standalone nats-server writes
	// the ports it listens on (NAME_PID.ports, JSON): with Port -1 the
	// server picks a free port itself, and nobody races it for the port.
	PortsFileDir string
	// Cluster, when set, makes the server one of a JetStream cluster.
	Cluster *Cluster
	// Resources, when set, are the server's max memory and file stores
	// (its JetStream's in all). StartServer sets them from the host
	// (HostResources) and fits the tenants' limits to them (FitTenants).
	Resources *Resources
}

// Cluster is a server's part in a cluster: the cluster's name, where the
// server listens for routes, and the routes to the other servers. Every
// server of a cluster has a unique Name (ServerOptions.Name) and the same
// tenants, with the same credentials.
type Cluster struct {
	Name   string
	Host   string
	Port   int
	Routes []string
}

// ServerConfig renders the options as a nats-server configuration, the
// same for the embedded server and for a standalone nats-server.
func ServerConfig(o ServerOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "server_name: %s\n", strconv.Quote(o.Name))
	fmt.Fprintf(&b, "host: %s\nport: %d\n", strconv.Quote(o.Host), o.Port)
	fmt.Fprintf(&b, "jetstream {\n  store_dir: %s\n", strconv.Quote(o.StoreDir))
	if r := o.Resources; r != nil {
		fmt.Fprintf(&b, "  max_memory_store: %d\n  max_file_store: %d\n", r.Memory, r.Storage)
	}
	b.WriteString("}\n")
	if o.LogFile != "" {
		fmt.Fprintf(&b, "logfile: %s\n", strconv.Quote(o.LogFile))
	}
	if o.PortsFileDir != "" {
		fmt.Fprintf(&b, "ports_file_dir: %s\n", strconv.Quote(o.PortsFileDir))
	}
	if c := o.Cluster; c != nil {
		host := c.Host
		if host == "" {
			host = o.Host
		}
		routes := make([]string, len(c.Routes))
		for i, r := range c.Routes {
			routes[i] = strconv.Quote(r)
		}
		fmt.Fprintf(&b, "cluster {\n  name: %s\n  listen: %s\n  routes: [%s]\n}\n",
			strconv.Quote(c.Name), strconv.Quote(net.JoinHostPort(host, strconv.Itoa(c.Port))), strings.Join(routes, ", "))
	}
	b.WriteString("accounts {\n")
	for _, t := range o.Tenants {
		l := t.Limits.OrDefault()
		fmt.Fprintf(&b, "  %s: {\n    jetstream: {max_file: %d, max_mem: %d, max_streams: %d, max_consumers: %d}\n    limits: {max_connections: %d, max_subscriptions: %d}\n    users: [{user: %s, password: %s}]\n  }\n",
			strconv.Quote(t.Name), l.MaxStorage, l.MaxMemory, l.MaxStreams, l.MaxConsumers, l.MaxConnections, l.MaxSubscriptions, strconv.Quote(t.User), strconv.Quote(t.Password))
	}
	b.WriteString("}\n")
	return b.String()
}

// Server is an embedded nats-server.
type Server struct {
	srv *server.Server
}

// ReadyTimeout bounds how long StartServer waits for the server.
const ReadyTimeout = 15 * time.Second

// StartServer starts an embedded nats-server with the tenants' accounts
// and waits until it accepts connections. Unless o.Resources says
// otherwise, the server's JetStream may use what HostResources finds, and
// each tenant's limits are lowered to its share of that (FitTenants); a
// disk too full to give each tenant MinTenantStorage is refused in one
// line before the server writes anything (nats-server panics when it
// cannot write its store).
func StartServer(o ServerOptions) (*Server, error) {
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Name == "" {
		o.Name = "fabric"
	}
	for _, t := range o.Tenants {
		if err := bus.ValidTenantName(t.Name); err != nil {
			return nil, err
		}
	}
	if o.Resources == nil && o.StoreDir != "" && o.Cluster == nil {
		r, err := HostResources(o.StoreDir)
		if err != nil {
			return nil, err
		}
		o.Resources = &r
	}
	if o.Resources != nil {
		fitted, err := FitTenants(o.Tenants, *o.Resources)
		if err != nil {
			return nil, fmt.Errorf("cannot start the NATS server with its store in %s: %v", o.StoreDir, err)
		}
		o.Tenants = fitted
	}
	if o.LogFile != "" {
		if err := privateLog(o.LogFile); err != nil {
			return nil, err
		}
	}
	opts := &server.Options{}
	if err := opts.ProcessConfigString(ServerConfig(o)); err != nil {
		return nil, fmt.Errorf("nats-server configuration: %v", err)
	}
	opts.NoSigs = true
	opts.NoLog = o.LogFile == ""
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("nats-server: %v", err)
	}
	if o.LogFile != "" {
		s.ConfigureLogger()
	}
	failed := make(chan error, 1)
	go func() {
		if err := budget.Guard(func() error { s.Start(); return nil }); err != nil {
			failed <- err
		}
	}()
	ready := make(chan bool, 1)
	go func() { ready <- s.ReadyForConnections(ReadyTimeout) }()
	select {
	case err := <-failed:
		return nil, fmt.Errorf("the embedded NATS server failed to start with its store in %s: %v", o.StoreDir, err)
	case ok := <-ready:
		if !ok {
			s.Shutdown()
			return nil, fmt.Errorf("timed out after %s waiting for the embedded NATS server to accept connections on %s:%d", ReadyTimeout, o.Host, o.Port)
		}
	}
	return &Server{srv: s}, nil
}

// privateLog makes the server's log file readable by its owner only
// (nats-server creates it 0640, and keeps the mode of one that exists).
func privateLog(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("the NATS server's log: %v", err)
	}
	defer f.Close()
	return f.Chmod(0o600)
}

// URL returns the client URL of the server (nats://host:port).
func (s *Server) URL() string { return s.srv.ClientURL() }

// Port returns the port the server listens on.
func (s *Server) Port() int {
	if a, ok := s.srv.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// NumClients is how many client connections the server has.
func (s *Server) NumClients() int { return s.srv.NumClients() }

// Version returns the server's version.
func (s *Server) Version() string { return server.VERSION }

// Shutdown stops the server, flushing JetStream, and waits until it is down.
func (s *Server) Shutdown() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}
