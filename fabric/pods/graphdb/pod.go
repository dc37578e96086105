package graphdb

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"golang.org/x/net/netutil"
)

// PodOptions configures the graph database pod.
type PodOptions struct {
	// Dir holds the store and the key that signs its tokens.
	Dir string
	// Listen is the address the HTTP server binds (host:port).
	Listen string
	// User and Password are the credentials clients must present.
	User, Password string
	// Limits fence the tenant's queries (zero fields: aql.DefaultLimits).
	Limits aql.Limits
	// MaxConnections bounds the connections the server holds at once
	// (0: DefaultMaxConnections); more wait in the kernel's queue, holding
	// none of the process's file descriptors.
	MaxConnections int
	// Reserved, when set, holds Listen already bound (Local binds the port
	// it chooses, so that nothing takes it before the pod starts); the
	// pod's first start serves on it, later ones bind Listen again.
	Reserved *pod.Reservation
}

// DefaultMaxConnections is how many connections a tenant's graph
// database holds at once unless its options say otherwise: ample for the
// drivers' pools, far below the process's file limit, so that a tenant's
// idle connections cannot take the descriptors every tenant's NATS
// connection needs.
const DefaultMaxConnections = 256

// listen is the pod's listener: the reserved one, else Listen bound now.
func (o PodOptions) listen() (net.Listener, error) { return o.Reserved.Listen(o.Listen) }

// secretFile holds the key that signs the server's JWTs, so that tokens
// stay valid across restarts (ArangoDB's --server.jwt-secret-keyfile).
const secretFile = "jwt.secret"

// Serve makes p the graph database pod: it opens the store in o.Dir,
// answers ArangoDB's HTTP API on o.Listen, and stops both when p stops
// (in-flight requests finish first, within five seconds). The store's
// data counts against the tenant's storage limit (storagelimit.go).
func Serve(p *pod.Pod, o PodOptions) error {
	if o.Dir == "" || o.Listen == "" {
		return errors.New("the graph database needs a directory and a listen address")
	}
	if o.User == "" || o.Password == "" {
		return errors.New("the graph database needs a user and a password (graphdb section of the network configuration)")
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return err
	}
	secret, err := loadSecret(filepath.Join(o.Dir, secretFile))
	if err != nil {
		return err
	}
	ln, err := o.listen()
	if err != nil {
		return fmt.Errorf("graph database: %w", err)
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	ln = netutil.LimitListener(ln, o.MaxConnections)
	st, err := graphstore.Open(filepath.Join(o.Dir, "store"))
	if err != nil {
		ln.Close()
		return fmt.Errorf("graph database store in %s: %w", o.Dir, err)
	}
	storageLimit(p, st)
	go watchStorageLimit(p, st)
	server := New(st, Options{User: o.User, Password: o.Password, Secret: secret, Limits: o.Limits, Logf: p.Logf})
	p.SetLimits(limitRows(server.Limits(), o.MaxConnections))
	srv := &http.Server{
		Handler:           server.Handler(),
		Protocols:         Protocols(),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       5 * time.Minute,
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.Warnf(api.LoggerGraphDB, "graph database server: %v", err)
		}
	}()
	p.Infof(api.LoggerGraphDB, "graph database on http://%s, store %s", ln.Addr(), o.Dir)
	addr := ln.Addr().String()
	p.AddHealthCheck("DB-connectivity", func(ctx context.Context) (string, error) {
		r, err := st.NewReader() // the store answers reads
		if err != nil {
			return "", fmt.Errorf("graph store in %s: %v", o.Dir, err)
		}
		r.Close()
		return fmt.Sprintf("graph store reachable, %d database(s), serving on %s", len(st.Databases()), addr), nil
	})
	p.OnStop(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
		<-served
		if err := st.Close(); err != nil {
			p.Warnf(api.LoggerGraphDB, "closing the graph store: %v", err)
		}
	})
	return nil
}

// loadSecret reads the token key at path, making one when there is none.
func loadSecret(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
		return b, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return b, safefile.WriteMode(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// Local returns a graph database on 127.0.0.1 with its store in dir, as
// the local fabric runs one per tenant, and the graphdb section that
// reaches it: the port and credentials of last (the tenant's section of
// the last run) when that port is free, else a free port and, when last
// has none, new credentials.
func Local(dir string, last bus.GraphDBConfig) (PodOptions, bus.GraphDBConfig, error) {
	c := last
	// The port is bound here and held until the pod serves on it: a port
	// found free and bound later could be taken in between.
	var ln net.Listener
	if u, err := url.Parse(c.URL); err == nil && u.Hostname() == "127.0.0.1" && c.Password != "" {
		if p, err := strconv.Atoi(u.Port()); err == nil && p > 0 {
			ln, _ = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		}
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return PodOptions{}, c, fmt.Errorf("no free port for the graph database: %w", err)
		}
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if c.User == "" || c.Password == "" {
		pw, err := bus.NewPassword()
		if err != nil {
			ln.Close()
			return PodOptions{}, c, err
		}
		c.User, c.Password = "root", pw
	}
	listen := "127.0.0.1:" + strconv.Itoa(port)
	c.URL = "http://" + listen
	return PodOptions{Dir: dir, Listen: listen, Reserved: pod.Reserve(ln)}, c, nil
}
