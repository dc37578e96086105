package graphdb

import (
	"context"
	"time"

	"github.com/fabricops/fabric/fabric/lib/graphstore"
	"github.com/fabricops/fabric/fabric/pods/pod"
)

// The graph store's data counts against the tenant's storage limit: the
// max storage of its JetStream account (bus.Limits.MaxStorage, fitted to
// the server's disk), less what JetStream holds. The pod reads both from
// the account at start and every storageRefresh.
const storageRefresh = 10 * time.Second

// storageLimit sets the store's storage limit from the tenant's account;
// it keeps the last one when the account cannot be read.
func storageLimit(p *pod.Pod, st *graphstore.Store) {
	js := p.JetStream()
	if js == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := js.AccountInfo(ctx)
	if err != nil || info.Limits.MaxStore <= 0 {
		return
	}
	st.SetStorageLimit(max(info.Limits.MaxStore-int64(info.Store), 1))
}

// watchStorageLimit keeps the store's storage limit current until the
// pod stops.
func watchStorageLimit(p *pod.Pod, st *graphstore.Store) {
	t := time.NewTicker(storageRefresh)
	defer t.Stop()
	for {
		select {
		case <-p.Done():
			return
		case <-t.C:
			storageLimit(p, st)
		}
	}
}
