package builtins

import (
	"context"

	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"github.com/fabricops/fabric/runtime/doc"
	"go.starlark.net/starlark"
)

// syntheticsStatusColumns are the fields of a row of synthetics.status,
// in order.
var syntheticsStatusColumns = []string{"profile", "check", "component", "target", "site", "status", "latency_ms",
	"http_status", "days_left", "reason", "timestamp", "type", "stack", "pod_id", "cert_expires"}

// syntheticsFunctions are status of the synthetics module.
func (e *Env) syntheticsFunctions() starlark.StringDict {
	return starlark.StringDict{
		"status": doc.Builtin("synthetics.status", `status()

Returns the last result of each check of the synthetic profiles (a probe
against a target, or against each component of the profile's stack, at a
site), as the workers of the profile's sites wrote it: a list of dicts
(profile, check, component, target, site, status (up, warning, down),
latency_ms, http_status, days_left (certificates), reason, timestamp,
type, stack, pod_id, cert_expires), by profile, check, component and
site. Every result is also a record of the system stream
fabric_synthetics_results.`,
			e.listCall(func(ctx context.Context, c *client.Client) (any, error) {
				r, err := artifactRepo(ctx, c)
				if err != nil {
					return nil, err
				}
				profiles, err := r.List(ctx, client.SyntheticsKind)
				if err != nil {
					return nil, err
				}
				names := map[string]bool{}
				for _, p := range profiles {
					n, _ := p.Doc.String("name")
					names[n] = true
				}
				st, err := client.OpenSyntheticsStatus(ctx, r.Store)
				if err != nil {
					return nil, err
				}
				results, err := st.Last(ctx)
				if err != nil {
					return nil, err
				}
				rows := []starlark.Value{}
				for _, res := range results {
					if !names[res.Profile] {
						continue // its profile was deleted: the workers prune it
					}
					v, err := starvalue.ToStarlark(syntheticsRow(res))
					if err != nil {
						return nil, err
					}
					rows = append(rows, v)
				}
				return starlark.NewList(rows), nil
			})),
	}
}

// syntheticsRow is a result as a row of synthetics.status.
func syntheticsRow(r client.SyntheticsResult) starvalue.Map {
	var httpStatus, daysLeft any
	if r.HTTPStatus != 0 {
		httpStatus = r.HTTPStatus
	}
	if r.DaysLeft != nil {
		daysLeft = *r.DaysLeft
	}
	values := []any{r.Profile, r.Check, r.Component, r.Target, r.Site, r.Status, r.LatencyMS,
		httpStatus, daysLeft, r.Reason, r.Timestamp, r.Type, r.Stack, r.PodID, r.CertExpires}
	m := make(starvalue.Map, len(values))
	for i, v := range values {
		m[i] = starvalue.KV{Key: syntheticsStatusColumns[i], Value: v}
	}
	return m
}
