package main

import (
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
)

// TestLimitSettings: the limits: section of fabricd's settings reaches
// the workers and the graph database; a bad one is one line.
func TestLimitSettings(t *testing.T) {
	s, err := ParseSettings([]byte(`nats: nats://127.0.0.1:4222
tenant: acme
pods: [worker, graphdb]
graphdb_dir: /tmp/g
limits:
  job: {max_memory_mb: 512, max_seconds: 60}
  job_max: {max_memory_mb: 1024}
  worker_memory_mb: 3000
  query: {memory_mb: 64, max_runtime_seconds: 30, concurrent: 1, queued: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FABRIC_GRAPHDB_USER", "root")
	t.Setenv("FABRIC_GRAPHDB_PASSWORD", "pw")
	o, err := s.options()
	if err != nil {
		t.Fatal(err)
	}
	if w := o.Worker; w.Limits != (api.JobLimits{MaxMemoryMB: 512, MaxSeconds: 60}) || w.MaxLimits.MaxMemoryMB != 1024 || w.MemoryMB != 3000 {
		t.Errorf("worker limits %+v %+v", w.Limits, w.MaxLimits)
	}
	if q := o.GraphDB.Limits; q.Memory != 64<<20 || q.Runtime != 30*time.Second || q.Concurrent != 1 || q.Queue != 2 {
		t.Errorf("query limits %+v", q)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"limits:\n  job: {max_memory_mb: -1}\n", "a limit cannot be negative"},
		{"limits:\n  job: {max_memory_mb: 4096}\n  job_max: {max_memory_mb: 1024}\n", "limits.job: limits: max_memory_mb 4096 is above the tenant's maximum of 1024"},
		{"limits:\n  query: {memroy_mb: 1}\n", "memroy_mb"},
	} {
		_, err := ParseSettings([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", tc.yaml, err, tc.want)
		}
	}
}
