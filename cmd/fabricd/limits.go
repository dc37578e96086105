package main

import (
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/aql"
)

// LimitSettings are the tenant's limits as fabricd's YAML settings give
// them (the limits: section); zero fields keep their defaults, which
// client limits lists.
type LimitSettings struct {
	// Job are a job's limits unless its pipeline asks for others, and
	// JobMax the most a pipeline may ask for.
	Job    api.JobLimits `yaml:"job"`
	JobMax api.JobLimits `yaml:"job_max"`
	// WorkerMemoryMB bounds what all of a worker's jobs hold at once.
	WorkerMemoryMB float64 `yaml:"worker_memory_mb"`
	// Query are the graph database's query limits.
	Query QueryLimitSettings `yaml:"query"`
}

// QueryLimitSettings are aql.Limits in the units people write.
type QueryLimitSettings struct {
	QueryKB           int     `yaml:"query_kb"`
	Nesting           int     `yaml:"nesting"`
	MemoryMB          int64   `yaml:"memory_mb"`
	MaxRuntimeSeconds float64 `yaml:"max_runtime_seconds"`
	ResultMB          int64   `yaml:"result_mb"`
	Concurrent        int     `yaml:"concurrent"`
	Queued            int     `yaml:"queued"`
	OpenCursorsMB     int64   `yaml:"open_cursors_mb"`
}

// check refuses negative limits and defaults above their maxima.
func (l LimitSettings) check() error {
	j, jm := l.Job, l.JobMax
	q := l.Query
	for _, v := range []float64{l.WorkerMemoryMB, float64(j.MaxRows), j.MaxMemoryMB, j.MaxSeconds, float64(jm.MaxRows), jm.MaxMemoryMB, jm.MaxSeconds,
		float64(q.QueryKB), float64(q.Nesting), float64(q.MemoryMB), q.MaxRuntimeSeconds, float64(q.ResultMB), float64(q.Concurrent), float64(q.OpenCursorsMB)} {
		if v < 0 {
			return fmt.Errorf("limits: a limit cannot be negative (%g)", v)
		}
	}
	max, _ := jm.Within(api.MaxJobLimits, api.JobLimits{})
	if _, err := j.Within(api.DefaultJobLimits, max); err != nil {
		return fmt.Errorf("limits.job: %v", err)
	}
	return nil
}

// aql is the query limits as the graph database takes them.
func (q QueryLimitSettings) aql() aql.Limits {
	return aql.Limits{
		QueryBytes:  q.QueryKB << 10,
		Nesting:     q.Nesting,
		Memory:      q.MemoryMB << 20,
		Runtime:     time.Duration(q.MaxRuntimeSeconds * float64(time.Second)),
		Result:      q.ResultMB << 20,
		Concurrent:  q.Concurrent,
		Queue:       q.Queued,
		CursorBytes: q.OpenCursorsMB << 20,
	}
}
