package eventgw_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
)

// tenant is one tenant of a two-tenant fabric, with its own gateway.
type tenant struct {
	name string
	dir  string // its own directory (the gateway's DataDir)
	c    *client.Client
	repo *artifact.Repo
}

// twoTenants starts a fabric of tenants a and b, each with an event
// gateway of its own (its DataDir its tenant's directory, failed
// endpoints tried again every 100 ms), sharing the host's port registry
// portsDir ("": the process's).
func twoTenants(t *testing.T, portsDir string) (a, b *tenant) {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Tenants: []string{"a", "b"}, Pods: []string{api.APIServer, api.EventGateway},
		EventGateway: eventgw.Options{PortsDir: portsDir, RetryFailed: 100 * time.Millisecond, MetricsPeriod: time.Hour}})
	out := map[string]*tenant{}
	for _, name := range []string{"a", "b"} {
		c, err := client.Connect(f.Configs[name])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		st, err := c.Data.Store(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out[name] = &tenant{name: name, dir: f.DataDir(name), c: c, repo: &artifact.Repo{Store: st}}
	}
	return out["a"], out["b"]
}

// add adds (or replaces) an endpoint of the tenant.
func (tn *tenant) add(t *testing.T, doc string) {
	t.Helper()
	if _, err := tn.repo.Add(context.Background(), artifact.EventEndpoint, []byte(doc), true); err != nil {
		t.Fatalf("tenant %s adding %q: %v", tn.name, doc, err)
	}
}

// status returns the tenant's endpoint name as its gateway runs it.
func (tn *tenant) status(name string) (api.IngestStatus, bool) {
	gws, err := tn.c.GatewayStatus(context.Background())
	if err != nil {
		return api.IngestStatus{}, false
	}
	for _, gw := range gws {
		for _, e := range gw.Endpoints {
			if e.Name == name {
				return e, true
			}
		}
	}
	return api.IngestStatus{}, false
}

// waitState waits for the tenant's endpoint name to be in state and
// returns it.
func (tn *tenant) waitState(t *testing.T, name, state string) api.IngestStatus {
	t.Helper()
	var e api.IngestStatus
	waitFor(t, fmt.Sprintf("tenant %s's endpoint %s %s", tn.name, name, state), func() bool {
		var ok bool
		e, ok = tn.status(name)
		return ok && e.State == state
	})
	return e
}

// served checks that a syslog message sent to the tenant's endpoint at
// addr reaches stream within the normal time (a few seconds on a loaded
// machine), and says how long it took.
func (tn *tenant) served(t *testing.T, network, addr, stream, text string) time.Duration {
	t.Helper()
	start := time.Now()
	before := len(atLeast(t, tn.c, stream, 0))
	send(t, network, addr, []byte("<14>1 2024-01-01T00:00:00Z h app - - - "+text+"\n"))
	evs := atLeast(t, tn.c, stream, before+1)
	if got := evs[len(evs)-1]["message"]; got != text {
		t.Errorf("tenant %s's stream %s got %v, want %q", tn.name, stream, got, text)
	}
	return time.Since(start)
}

// freeTCPPort returns a TCP port of 127.0.0.1 free now.
func freeTCPPort(t *testing.T) int { return fabrictest.Ports(t, "tcp", 1)[0] }

// freeUDPPort returns a UDP port of 127.0.0.1 free now.
func freeUDPPort(t *testing.T) int { return fabrictest.Ports(t, "udp", 1)[0] }

// pair makes a self-signed certificate of common name "fabric test
// <name>" and its key, in PEM.
func pair(t *testing.T, name string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fabric test " + name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// writePair writes a certificate and key for name in dir/sub (name.crt,
// name.key) and returns the certificate's common name.
func writePair(t *testing.T, dir, sub, name string) string {
	t.Helper()
	certPEM, keyPEM := pair(t, name)
	if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
		t.Fatal(err)
	}
	for file, data := range map[string][]byte{name + ".crt": certPEM, name + ".key": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, sub, file), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return "fabric test " + name
}

// putSecret keeps value as the tenant's secret name.
func putSecret(t *testing.T, tn *tenant, name string, value []byte) {
	t.Helper()
	st, err := tn.c.Data.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&secret.Store{Store: st}).Put(context.Background(), name, "", value, true); err != nil {
		t.Fatal(err)
	}
}

// servedCert returns the common name of the certificate served on port.
func servedCert(t *testing.T, port int) string {
	t.Helper()
	d := &net.Dialer{Timeout: 5 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].Subject.CommonName
}
