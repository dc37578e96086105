package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/packs"
	"github.com/fabricops/fabric/fabric/infra/secret"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/tenant"
	"github.com/fabricops/fabric/fabric/lib/pack"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
)

// packService answers the pack transactions (api.SubjectPackActivate,
// api.SubjectPackDeactivate) with an infra/packs Activator over the
// tenant's store. The requests of one api-server are answered one at a
// time (one subscription each); the activation record keeps two
// api-servers from activating one scope of a pack at once.
type packService struct {
	a *packs.Activator
}

// packWritten, when set, is called after each artifact an activation
// writes (the tests make an activation fail half-way with it).
var packWritten atomic.Pointer[func(api.PackCreated) error]

// newPackService returns the pack service of the pod p over its store.
func newPackService(p *pod.Pod, st *store.Store, data *tenant.Data) *packService {
	info := p.Info()
	env := packs.Env{Data: data, Store: st}
	targets := packs.NewTargets(env)
	targets[pack.TypeDataset] = datasetTarget(st, data)
	return &packService{a: &packs.Activator{
		Catalog: &packs.Catalog{Store: st},
		Targets: targets,
		Secrets: &secret.Store{Store: st},
		Tenant:  p.Tenant,
		Site:    info.SiteName,
		Written: func(c api.PackCreated) error {
			if hook := packWritten.Load(); hook != nil {
				return (*hook)(c)
			}
			return nil
		},
	}}
}

// serve answers a PackRequest on subject with a PackResult or an Error.
func (s *packService) serve(m *nats.Msg) {
	var req api.PackRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pod.Reply(m, api.Error{Error: "bad pack request: " + err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), api.PackTimeout)
	defer cancel()
	var rows []api.PackRow
	var err error
	switch m.Subject {
	case api.SubjectPackActivate:
		rows, err = s.a.Activate(ctx, req)
	case api.SubjectPackDeactivate:
		rows, err = s.a.Deactivate(ctx, req)
	default:
		err = fmt.Errorf("no pack operation on %s", m.Subject)
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("%v (the api-server gives a pack %s)", err, api.PackTimeout)
		}
		pod.Reply(m, api.Error{Error: err.Error()})
		return
	}
	pod.Reply(m, api.PackResult{Rows: rows})
}
