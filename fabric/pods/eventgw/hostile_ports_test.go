package eventgw_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
)

// TestHostilePortTakeover: tenant b's endpoint on a port tenant a's
// endpoint holds stays failed, told only that the port is reserved by
// another tenant (and b's gateway, asked first, says so), while a's
// endpoint listens, while it is disabled and
// after it is enabled again: b never binds the port, and a's traffic
// keeps reaching a. Both with the process's registry and with a host
// directory of reservations (as two fabricd processes share).
func TestHostilePortTakeover(t *testing.T) {
	for _, tc := range []struct {
		name     string
		portsDir func(t *testing.T) string
		typ      string
		network  string
	}{
		{"udp, process registry", func(*testing.T) string { return "" }, "syslog_udp_go", "udp"},
		{"tcp, host directory", func(t *testing.T) string { return t.TempDir() }, "syslog_tcp_go", "tcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := twoTenants(t, tc.portsDir(t))
			port := freeUDPPort(t)
			if tc.network == "tcp" {
				port = freeTCPPort(t)
			}
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			a.add(t, fmt.Sprintf("name: mine\ntype: %s\naddress: 127.0.0.1\nport: %d\n", tc.typ, port))
			a.waitState(t, "mine", "listening")
			a.served(t, tc.network, addr, "mine", "first")

			b.add(t, fmt.Sprintf("name: grab\ntype: %s\naddress: 127.0.0.1\nport: %d\n", tc.typ, port))
			want := fmt.Sprintf("port %d/%s is reserved by another tenant", port, tc.network)
			e := b.waitState(t, "grab", "failed")
			if e.Error != want {
				t.Fatalf("b's endpoint: error %q, want %q", e.Error, want)
			}
			// Asked first (event-endpoint add and enable), b's gateway
			// says the same; a's says the port is a's to use.
			if err := b.c.CheckEndpointPort(t.Context(), tc.typ, port, ""); err == nil || err.Error() != want {
				t.Errorf("b asking for a's port: %v, want %q", err, want)
			}
			if err := a.c.CheckEndpointPort(t.Context(), tc.typ, port, ""); err != nil {
				t.Errorf("a asking for its own port: %v", err)
			}

			// a disables its endpoint: the port is still a's.
			if _, err := a.repo.SetEnabled(t.Context(), artifact.EventEndpoint, "mine", false); err != nil {
				t.Fatal(err)
			}
			a.waitState(t, "mine", "disabled")
			// b's failed endpoint is tried again every 100 ms: for 1.5 s
			// it must stay failed.
			deadline := time.Now().Add(1500 * time.Millisecond)
			for time.Now().Before(deadline) {
				if e, ok := b.status("grab"); ok && e.State != "failed" {
					t.Fatalf("b's endpoint took a's port while a's endpoint was disabled: %+v", e)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if _, err := a.repo.SetEnabled(t.Context(), artifact.EventEndpoint, "mine", true); err != nil {
				t.Fatal(err)
			}
			a.waitState(t, "mine", "listening")
			took := a.served(t, tc.network, addr, "mine", "second")
			t.Logf("a served in %v after re-enabling", took)
			// (A status request that gets no answer says nothing of the
			// endpoint: it is asked again.)
			var e2 api.IngestStatus
			waitFor(t, "b's gateway to report its endpoint grab", func() bool {
				var ok bool
				e2, ok = b.status("grab")
				return ok
			})
			if e2.State != "failed" || e2.Received != 0 || strings.Contains(e2.Error, "tenant a") {
				t.Errorf("b's endpoint after a re-enabled: %+v", e2)
			}

			// a deletes its endpoint: the port is free for b.
			if err := a.repo.Delete(t.Context(), artifact.EventEndpoint, "mine"); err != nil {
				t.Fatal(err)
			}
			b.waitState(t, "grab", "listening")
			b.served(t, tc.network, addr, "grab", "now b's")
		})
	}
}

// TestHostileWebhookCertificatePaths: tenant b's webhook cannot serve a
// key of the host or of tenant a's directory: an absolute path or one
// out of b's directory is refused with one line naming the field, while
// a's webhook serves a's certificate from a's directory and b's serves
// one from b's secrets.
func TestHostileWebhookCertificatePaths(t *testing.T) {
	a, b := twoTenants(t, "")
	certA := writePair(t, a.dir, "tls", "a")
	aPort := freeTCPPort(t)
	a.add(t, fmt.Sprintf("name: hook\ntype: webhook\naddress: 127.0.0.1\nport: %d\ntls_cert_file: tls/a.crt\ntls_key_file: tls/a.key\n", aPort))
	a.waitState(t, "hook", "listening")
	if got := servedCert(t, aPort); got != certA {
		t.Fatalf("a's webhook serves %q, want %q", got, certA)
	}

	for _, tc := range []struct{ name, cert, key, want string }{
		{"absolute", a.dir + "/tls/a.crt", a.dir + "/tls/a.key", "is outside the tenant's directory"},
		{"dotdot", "../a/tls/a.crt", "../a/tls/a.key", "is outside the tenant's directory"},
		{"host", "/etc/hostname", "/etc/hostname", "is outside the tenant's directory"},
		{"both", "tls/b.crt", "tls/b.key", "no such file"},
	} {
		name := "steal-" + tc.name
		b.add(t, fmt.Sprintf("name: %s\ntype: webhook\naddress: 127.0.0.1\nport: %d\ntls_cert_file: %s\ntls_key_file: %s\n",
			name, freeTCPPort(t), tc.cert, tc.key))
		e := b.waitState(t, name, "failed")
		if !strings.Contains(e.Error, tc.want) || strings.Contains(e.Error, "PRIVATE KEY") || strings.Count(e.Error, "\n") > 0 {
			t.Errorf("b's %s: error %q, want one line with %q", name, e.Error, tc.want)
		}
	}

	// b's certificate from b's secrets.
	certB, keyB := pair(t, "b")
	putSecret(t, b, "hook-cert", certB)
	putSecret(t, b, "hook-key", keyB)
	bPort := freeTCPPort(t)
	b.add(t, fmt.Sprintf("name: hook\ntype: webhook\naddress: 127.0.0.1\nport: %d\ntls_cert_secret: hook-cert\ntls_key_secret: hook-key\n", bPort))
	b.waitState(t, "hook", "listening")
	if got := servedCert(t, bPort); got != "fabric test b" {
		t.Errorf("b's webhook serves %q, want b's certificate", got)
	}
	// a is still served, at once.
	if got := servedCert(t, aPort); got != certA {
		t.Errorf("a's webhook serves %q after b's attempts", got)
	}
}
