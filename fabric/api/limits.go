package api

import (
	"sort"
	"strconv"
)

// SubjectLimits asks the api-server for the limits in force on the
// tenant's pods (a list of LimitRow).
const SubjectLimits = "fabric.api.limits"

// EndpointLimits is the pod endpoint answering the limits the pod
// enforces.
const EndpointLimits = "limits"

// LimitRow is one limit in force on a tenant: what it bounds, its value,
// the most it may be raised to, where it is changed, and the pods that
// enforce it. The limits command lists them.
type LimitRow struct {
	// Scope is the unit of work the limit fences: "job", "query",
	// "endpoint", "tenant", ...
	Scope string `json:"scope"`
	// Limit names it as it is set ("max_memory_mb").
	Limit string `json:"limit"`
	// Value is the default in force, Maximum the most a unit may ask for
	// ("" when it cannot ask for more).
	Value   string `json:"value"`
	Maximum string `json:"maximum"`
	// SetBy says where it is changed.
	SetBy string `json:"set_by"`
	// PodType is the pod type that enforces it ("" for the fabric's
	// server).
	PodType string `json:"pod_type"`
}

// MergeLimits returns the rows of every pod once (pods of one type
// answer the same rows), ordered by scope, pod type and limit.
func MergeLimits(per [][]LimitRow) []LimitRow {
	seen := map[LimitRow]bool{}
	var out []LimitRow
	for _, rows := range per {
		for _, r := range rows {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Scope != b.Scope {
			return a.Scope < b.Scope
		}
		if a.PodType != b.PodType {
			return a.PodType < b.PodType
		}
		return a.Limit < b.Limit
	})
	return out
}

// Rows returns the job limits as limit rows: the defaults l, the maxima
// max, set as the workers are configured.
func (l JobLimits) Rows(max JobLimits, setBy string) []LimitRow {
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	return []LimitRow{
		{Scope: "job", Limit: "max_rows", Value: strconv.FormatInt(l.MaxRows, 10), Maximum: strconv.FormatInt(max.MaxRows, 10), SetBy: setBy, PodType: Worker},
		{Scope: "job", Limit: "max_memory_mb", Value: num(l.MaxMemoryMB), Maximum: num(max.MaxMemoryMB), SetBy: setBy, PodType: Worker},
		{Scope: "job", Limit: "max_seconds", Value: num(l.MaxSeconds), Maximum: num(max.MaxSeconds), SetBy: setBy, PodType: Worker},
	}
}
