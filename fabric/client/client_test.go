package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

func TestPodsHealthAndLeader(t *testing.T) {
	f := fabrictest.Start(t, fabrictest.Options{})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	start := time.Now()
	pods, err := c.Pods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pods took %s", time.Since(start))
	if len(pods) != len(fabrictest.DefaultPods) {
		t.Fatalf("want %d pods, got %d: %+v", len(fabrictest.DefaultPods), len(pods), pods)
	}
	leaders := 0
	for _, p := range pods {
		if p.PodLeader {
			leaders++
		}
	}
	if leaders != 1 {
		t.Errorf("want one leader, got %d", leaders)
	}
	rows, err := c.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Status != api.StatusOK {
			t.Errorf("unhealthy: %+v", r)
		}
	}
	t.Logf("%d health rows", len(rows))
}
