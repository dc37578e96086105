package scheduler

import (
	"encoding/json"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/placement"
)

// Workers converts the info of pods into the workers placement picks
// from (the pods of other types are left out), sorted as given.
func Workers(pods []api.PodInfo) []placement.Worker {
	var out []placement.Worker
	for _, p := range pods {
		if p.PodType != api.Worker {
			continue
		}
		out = append(out, placement.Worker{ID: p.PodID, Site: p.SiteName, Hostname: p.Hostname,
			Labels: asMap(p.Labels), Resources: asMap(p.Resources), ActiveJobs: p.Resources.PodUsageActiveJobs,
			CapacityFilter: p.CapacityFilter, Maintenance: p.Maintenance})
	}
	return out
}

// Placement converts a placement of the protocol into placement's own.
func Placement(pl api.Placement) placement.Placement {
	return placement.Placement{Site: pl.Site, SiteIsName: pl.SiteIsName, LFilter: pl.LFilter, RFilter: pl.RFilter}
}

// asMap turns a struct into the map of its JSON fields.
func asMap(v any) map[string]any {
	data, _ := json.Marshal(v)
	m := map[string]any{}
	_ = json.Unmarshal(data, &m)
	return m
}
