package eventgw_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/streams"
	"github.com/fabricops/fabric/fabric/pods/eventgw"
)

// TestGatewaySurvivesNATSRestart: syslog sent over TCP while the NATS
// server stops and starts again all reaches the stream, each message
// once: the gateway keeps what it read until the stream acknowledges it,
// and the stream drops the copies of a batch sent again.
func TestGatewaySurvivesNATSRestart(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.EventGateway},
		EventGateway: eventgw.Options{Defaults: true, CertDir: t.TempDir()}})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var port int
	waitFor(t, "the syslog-tcp endpoint", func() bool {
		gws, err := c.GatewayStatus(context.Background())
		if err != nil || len(gws) != 1 {
			return false
		}
		for _, e := range gws[0].Endpoints {
			if e.Name == "syslog-tcp" && e.State == "listening" {
				port = e.Port
			}
		}
		return port != 0
	})
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	const total = 3000
	sent := make(chan error, 1)
	go func() {
		defer conn.Close()
		for i := range total {
			_ = conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if _, err := fmt.Fprintf(conn, "<14>1 2024-01-01T00:00:00Z h app - - - n=%d\n", i); err != nil {
				sent <- err
				return
			}
			if i%100 == 0 {
				time.Sleep(50 * time.Millisecond) // about 1.5 s of sending
			}
		}
		sent <- nil
	}()
	time.Sleep(400 * time.Millisecond)
	f.RestartServer(t, 2*time.Second)
	if err := <-sent; err != nil {
		t.Fatalf("sending: %v", err)
	}
	// The client reconnects too; read until every message is there.
	seen := map[int]int{}
	deadline := time.Now().Add(60 * time.Second)
	for {
		clear(seen)
		_, err := streams.Read(context.Background(), c.JetStream(), "syslog-tcp", streams.ReadOptions{}, func(m streams.Message) error {
			var ev api.Event
			if err := json.Unmarshal(m.Data, &ev); err != nil {
				return err
			}
			var n int
			fmt.Sscanf(ev.Message, "n=%d", &n)
			seen[n]++
			return nil
		})
		if err == nil && len(seen) == total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s the stream holds %d of the %d messages sent (%v)", len(seen), total, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for n, k := range seen {
		if k != 1 {
			t.Errorf("message %d is in the stream %d times", n, k)
		}
	}
}
