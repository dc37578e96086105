package worker_test

import (
	"context"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/fabrictest"
	"github.com/fabricops/fabric/fabric/infra/botpackages"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/lib/botpkg"
)

// packageFabric is a fabric of an api-server, a scheduler and a worker
// for the tests of bot packages, with a client of its tenant a.
type packageFabric struct {
	f   *fabrictest.Fabric
	c   *client.Client
	ctx context.Context
	st  *store.Store
	cat *botpackages.Catalog
}

// startPackageFabric starts a packageFabric whose operations are bounded
// by timeout, and adds the bot package of each file set given.
func startPackageFabric(t *testing.T, timeout time.Duration, packages ...fstest.MapFS) *packageFabric {
	t.Helper()
	f := fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer, api.Scheduler, api.Worker}})
	c, err := client.Connect(f.Configs["a"])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	st, err := c.Data.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pf := &packageFabric{f: f, c: c, ctx: ctx, st: st, cat: &botpackages.Catalog{Store: st}}
	for _, files := range packages {
		pf.add(t, files)
	}
	return pf
}

// add adds the bot package of files to the catalog.
func (pf *packageFabric) add(t *testing.T, files fstest.MapFS) {
	t.Helper()
	archive, err := botpkg.Pack(files, botpkg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pf.cat.Add(pf.ctx, archive, false); err != nil {
		t.Fatal(err)
	}
}
