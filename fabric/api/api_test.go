package api_test

import (
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
)

// TestDefaultCapacityFilterScalesWithCPUs: the default filter's load limit
// counts per CPU, so a busy small host still takes work and a loaded one
// does not.
func TestDefaultCapacityFilterScalesWithCPUs(t *testing.T) {
	idle := map[string]any{"mem_percent": 40.0, "pod_usage_active_jobs": 0}
	for _, tc := range []struct {
		cpus int
		load float64
		want bool
	}{
		{2, 0.5, true},
		{2, 8.5, true}, // a 2-core host running a build: not refused
		{2, 14.5, false},
		{8, 50, true},
		{8, 60, false},
		{1, 7.0, true},
		{0, 7.5, false}, // no CPU count: one CPU
	} {
		filter := api.DefaultCapacityFilter(tc.cpus)
		q, err := cfxql.Parse(filter)
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		res := map[string]any{"cpu_load1": tc.load}
		for k, v := range idle {
			res[k] = v
		}
		got, err := q.Match(res)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%d CPUs, load %.1f: %q holds = %v, want %v", tc.cpus, tc.load, filter, got, tc.want)
		}
	}
	if got := api.DefaultCapacityFilter(2); got != "cpu_load1 <= 14.0 and mem_percent < 98 and pod_usage_active_jobs < 20" {
		t.Errorf("on 2 CPUs: %q", got)
	}
}
