package builtins_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestDialAhead: the connection made ahead is the one Client returns (no
// second connection), with the configuration it was made from.
func TestDialAhead(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{}})
	path := client.ConfigPath(f.Home)
	clients := func() int { return f.Server.NumClients() }
	settle := func(want int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for clients() != want && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := clients(); n != want {
			t.Fatalf("the server has %d clients, want %d", n, want)
		}
	}
	base := clients()

	t.Run("taken", func(t *testing.T) {
		e := &builtins.Env{Home: f.Home}
		defer e.Close()
		e.DialAhead()
		if _, err := e.Client(); err != nil {
			t.Fatal(err)
		}
		settle(base + 1)
	})
	settle(base)

	t.Run("configuration changed meanwhile", func(t *testing.T) {
		// The configuration read when the connection was made is the one
		// the command goes on with: one connection, not two.
		e := &builtins.Env{Home: f.Home}
		defer e.Close()
		e.DialAhead()
		settle(base + 1)
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(path, orig, 0o600)
		var cfg client.Config
		if err := json.Unmarshal(orig, &cfg); err != nil {
			t.Fatal(err)
		}
		cfg.NATS.URLs = append(cfg.NATS.URLs, cfg.NATS.URLs[0])
		changed, _ := json.Marshal(cfg)
		if err := os.WriteFile(path, changed, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := e.Client()
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Config.NATS.URLs; len(got) != 1 {
			t.Errorf("the client connected with %v, not the configuration it dialed with", got)
		}
		settle(base + 1)
	})
}
