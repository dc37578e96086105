package pod

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go/jetstream"
)

// Health checks the pod and returns one row per health parameter:
// service-status, objstore-connectivity, kv-connectivity,
// service-initialization-status, service-dependency:<type> for each
// dependency, then those the pod's service added (AddHealthCheck).
func (p *Pod) Health(ctx context.Context) []api.HealthRow {
	row := func(param string, err error, okMsg string) api.HealthRow {
		r := api.HealthRow{Cat: p.Category, PodType: p.Type, Host: p.hostname, ID: p.ID,
			Site: p.Site, Parameter: param, Status: api.StatusOK, Message: okMsg}
		if err != nil {
			r.Status, r.Message = api.StatusFailed, err.Error()
		}
		return r
	}
	rows := []api.HealthRow{row("service-status", nil, "running for "+time.Since(p.started).Round(time.Second).String())}
	if p.InMaintenance() {
		rows = append(rows, row("maintenance", nil, fmt.Sprintf("in maintenance: takes no new jobs (%d running)", p.ActiveJobs())))
	}

	var objErr error
	if p.objects == nil {
		objErr = fmt.Errorf("object store %s unavailable", api.ObjectsBucket)
	} else if _, err := p.objects.Status(ctx); err != nil {
		objErr = fmt.Errorf("object store %s: %v", api.ObjectsBucket, err)
	}
	rows = append(rows, row("objstore-connectivity", objErr, "object store "+api.ObjectsBucket+" reachable"))

	_, kvErr := p.registry.Status(ctx)
	if kvErr != nil {
		kvErr = fmt.Errorf("key-value bucket %s: %v", api.PodsBucket, kvErr)
	}
	rows = append(rows, row("kv-connectivity", kvErr, "key-value store reachable"))

	var initErr error
	if p.initErr != nil {
		initErr = fmt.Errorf("initialization failed: %v", p.initErr)
	}
	rows = append(rows, row("service-initialization-status", initErr, "initialized"))

	if len(p.Dependencies) > 0 {
		live, err := p.liveTypes(ctx)
		for _, dep := range p.Dependencies {
			depErr := err
			if depErr == nil && live[dep] == 0 {
				depErr = fmt.Errorf("no live %s pod", dep)
			}
			rows = append(rows, row("service-dependency:"+dep, depErr, fmt.Sprintf("%d live %s pod(s)", live[dep], dep)))
		}
	}
	p.hooksMu.Lock()
	checks := append([]healthCheck(nil), p.checks...)
	p.hooksMu.Unlock()
	for _, c := range checks {
		msg, err := c.check(ctx)
		rows = append(rows, row(c.param, err, msg))
	}
	return rows
}

// liveTypes counts the registered pods of each type.
func (p *Pod) liveTypes(ctx context.Context) (map[string]int, error) {
	w, err := p.registry.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	counts := map[string]int{}
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok || e == nil {
				return counts, nil
			}
			var reg api.Registration
			if json.Unmarshal(e.Value(), &reg) == nil {
				counts[reg.PodType]++
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("timed out reading the pod registry")
		}
	}
}
