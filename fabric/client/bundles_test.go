package client_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/nats-io/nats.go"
)

// TestBundleRequestWaits: a bundle deployment is one request to the
// api-server; with none running the client says so at once, and while
// the api-server has not answered the client stops waiting when the
// caller's context ends, saying what it waited for.
func TestBundleRequestWaits(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.Worker}})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := &client.Bundle{Files: []client.BundleFile{{Type: client.BundleDashboard, Path: "dashboards/ops.yaml", Data: []byte("name: ops\n")}}}
	_, err = c.DeployBundle(context.Background(), b, client.BundleOptions{})
	if want := "no api-server is running: it deploys bundles (start one: client fabric up)"; err == nil || err.Error() != want {
		t.Fatalf("with no api-server: %v, want %q", err, want)
	}

	// An api-server that takes the request and does not answer.
	got := make(chan []byte, 1)
	sub, err := c.Conn().Subscribe(api.SubjectBundleDeploy, func(m *nats.Msg) { got <- m.Data })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.CompareBundle(ctx, b, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "stopped waiting for the api-server to compare the bundle: context deadline exceeded") {
		t.Fatalf("with no answer: %v, want it to say it stopped waiting", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("waited %s after the caller's context ended", d)
	}
	select {
	case data := <-got:
		if !strings.Contains(string(data), `"compare":true`) || !strings.Contains(string(data), `"path":"dashboards/ops.yaml"`) {
			t.Errorf("request %s, want the files and compare", data)
		}
	default:
		t.Error("the api-server got no request")
	}
}
