package pod

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// objInfoTimeout bounds the reading of the object store's usage.
const objInfoTimeout = 5 * time.Second

// ObjInfo returns the pod's object store as it sees it (worker-obj-info):
// its connection, the tenant's object store buckets with their objects
// and bytes, and the tenant's storage use and limit.
func (p *Pod) ObjInfo(ctx context.Context) (api.ObjInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, objInfoTimeout)
	defer cancel()
	o := api.ObjInfo{PodID: p.ID, PodType: p.Type, Hostname: p.hostname, SiteName: p.Site,
		Server: p.nc.ConnectedUrlRedacted(), ObjstoreHost: p.ObjstoreHost, Bucket: api.ObjectsBucket, Buckets: []api.ObjBucket{}}
	acct, err := p.js.AccountInfo(ctx)
	if err != nil {
		return o, timedOut(err, "the tenant's account")
	}
	o.StorageUsedBytes, o.StorageLimitBytes = acct.Store, acct.Limits.MaxStore
	names := p.js.ObjectStoreNames(ctx)
	var buckets []string
	for n := range names.Name() {
		buckets = append(buckets, n)
	}
	if err := names.Error(); err != nil {
		return o, timedOut(err, "the object store buckets")
	}
	sort.Strings(buckets)
	for _, name := range buckets {
		obs, err := p.js.ObjectStore(ctx, name)
		if err != nil {
			return o, timedOut(err, "object store "+name)
		}
		st, err := obs.Status(ctx)
		if err != nil {
			return o, timedOut(err, "object store "+name)
		}
		b := api.ObjBucket{Bucket: name, Bytes: st.Size(), Storage: st.Storage().String(), Replicas: st.Replicas(), Sealed: st.Sealed()}
		lister, err := obs.List(ctx)
		switch {
		case errors.Is(err, jetstream.ErrNoObjectsFound):
		case err != nil:
			return o, timedOut(err, "the objects of "+name)
		default:
			b.Objects = len(lister)
		}
		o.Buckets = append(o.Buckets, b)
	}
	return o, nil
}

// timedOut names what a request that failed was about, and says when it
// was the wait that ended it.
func timedOut(err error, what string) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return errors.New("timed out after " + objInfoTimeout.String() + " reading " + what)
	}
	return errors.New(what + ": " + err.Error())
}

func (p *Pod) handleObjInfo(r micro.Request) {
	o, err := p.ObjInfo(context.Background())
	if err != nil {
		respondJSON(r, api.Error{Error: err.Error()})
		return
	}
	respondJSON(r, o)
}
