package natsserver

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/infra/bus"
	"github.com/nats-io/nats.go"
)

// TestHostileConnections: a tenant that opens connections without end is
// refused past its account's limit, with the server's one line, while
// the other tenant connects and is served as usual; before, every
// connection took two of the process's descriptors, for as many as the
// tenant cared to open.
func TestHostileConnections(t *testing.T) {
	var ts []bus.Tenant
	for _, name := range []string{"a", "b"} {
		tn, err := bus.NewTenant(name)
		if err != nil {
			t.Fatal(err)
		}
		tn.Limits = bus.Limits{MaxConnections: 20}
		ts = append(ts, tn)
	}
	srv, err := StartServer(ServerOptions{Name: "conns", Host: "127.0.0.1", Port: -1, StoreDir: filepath.Join(t.TempDir(), "jetstream"), Tenants: ts})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	connect := func(tn bus.Tenant) (*nats.Conn, error) {
		return nats.Connect(srv.URL(), nats.UserInfo(tn.User, tn.Password), nats.NoReconnect())
	}
	var held []*nats.Conn
	defer func() {
		for _, nc := range held {
			nc.Close()
		}
	}()
	var refused error
	for range 100 {
		nc, err := connect(ts[1])
		if err != nil {
			refused = err
			break
		}
		held = append(held, nc)
	}
	if len(held) != 20 || refused == nil || !strings.Contains(refused.Error(), "maximum account active connections exceeded") {
		t.Fatalf("b held %d connections, then: %v", len(held), refused)
	}
	nc, err := connect(ts[0])
	if err != nil {
		t.Fatalf("the other tenant cannot connect: %v", err)
	}
	defer nc.Close()
	if _, err := nc.Request("nobody.answers", nil, 200*time.Millisecond); err != nats.ErrNoResponders {
		t.Fatalf("the other tenant is not served: %v", err)
	}
}
