package api

import (
	"fmt"
	"time"
)

// Jobs: pipelines running on worker pods (SPEC 2.9).
const (
	// JobsBucket holds a record per job, by job id (32 hex).
	JobsBucket = "jobs"
	// OutputsFolder is where job outputs are kept in the object store,
	// as OutputsFolder/<jobid>.parquet.
	OutputsFolder = "outputs"
	// OutputTTL is how long a job's output is kept before it is purged.
	OutputTTL = 6 * time.Hour

	// EndpointRun starts a pipeline on a worker (a RunRequest; the answer
	// is a StartResponse).
	EndpointRun = "run"
	// EndpointEvict stops a job on its worker (an EvictRequest).
	EndpointEvict = "evict"
	// EndpointVerify checks a pipeline on a worker without running it.
	EndpointVerify = "verify"

	// SubjectTraces is the prefix of step traces:
	// SubjectTraces.<pod id>.<job id>.
	SubjectTraces = "fabric.trace"
)

// Job statuses.
const (
	JobInitializing = "Initializing"
	JobRunning      = "Running"
	JobCompleted    = "Completed"
	JobFailed       = "Failed"
	JobEvicted      = "Evicted"
)

// JobActive reports whether a job status is one of a job still running.
func JobActive(status string) bool { return status == JobInitializing || status == JobRunning }

// TraceSubject returns the subject of a job's step traces.
func TraceSubject(podID, jobID string) string {
	return fmt.Sprintf("%s.%s.%s", SubjectTraces, podID, jobID)
}

// Job is a job's record (SPEC 2.9: Host, Pod ID, Job ID, PID, Created,
// Age, Pipeline, Status, Reason).
type Job struct {
	JobID    string `json:"jobid"`
	PodID    string `json:"pod_id"`
	Host     string `json:"host"`
	PID      int    `json:"pid"`
	Site     string `json:"site_name"`
	Pipeline string `json:"pipeline"`
	Version  string `json:"version"`
	Status   string `json:"status"`
	Reason   string `json:"reason"`
	Created  string `json:"created"`
	Updated  string `json:"updated"`
	// Steps is the number of steps; Step the one running (1-based).
	Steps int `json:"steps"`
	Step  int `json:"step"`
	// Output is the object-store path of the output (empty until the job
	// completes, and once purged); OutputRows its number of rows.
	Output     string `json:"output"`
	OutputRows int64  `json:"output_rows"`
	// SmallOutput is the copy of a small output the record keeps, for
	// clients without the data libraries (nil: none, or purged).
	SmallOutput *SmallOutput `json:"small_output,omitempty"`
	// Owner is the deployment or schedule the job runs for (nil: started
	// by hand).
	Owner *JobOwner `json:"owner,omitempty"`
}

// RunRequest asks a worker to run a pipeline.
type RunRequest struct {
	Pipeline string         `json:"pipeline"`
	Version  string         `json:"version"`
	Steps    []PipelineStep `json:"steps"`
	// Sources are the pipeline's sources map: a bot package's steps that
	// name no source run against the source its entry of the package's
	// type (the package's name) names.
	Sources map[string]PipelineSource `json:"sources,omitempty"`
	// Limits are the pipeline's own (nil: the defaults).
	Limits *JobLimits `json:"limits,omitempty"`
	// Owner is recorded in the job's record: the deployment or schedule
	// the controller starts it for.
	Owner *JobOwner `json:"owner,omitempty"`
}

// StartResponse answers a request that starts work (SPEC 2.9): status is
// "started" (or "failed", with the reason), and progress follows on the
// status subject.
type StartResponse struct {
	Status        string `json:"status"`
	Reason        string `json:"reason"`
	Results       []any  `json:"results"`
	Now           string `json:"now"`
	StatusSubject string `json:"status-subject"`
	JobID         string `json:"jobid"`
	// Maintenance marks a start the worker refused because it is in
	// maintenance mode: no job was made, and the scheduler places the
	// request again.
	Maintenance bool `json:"maintenance,omitempty"`
}

// EvictRequest asks a worker to stop a job.
type EvictRequest struct {
	JobID  string `json:"jobid"`
	Reason string `json:"reason"`
}

// VerifyResponse answers EndpointVerify: Error is empty when the pipeline
// is sound.
type VerifyResponse struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	Steps int    `json:"steps"`
}

// Trace is one step event of a job, published on its trace subject.
type Trace struct {
	JobID      string  `json:"jobid"`
	PodID      string  `json:"pod_id"`
	Pipeline   string  `json:"pipeline"`
	Time       string  `json:"time"`
	Block      int     `json:"block"`
	Step       int     `json:"step"`
	Tag        string  `json:"tag"`
	Status     string  `json:"status"`
	Rows       int     `json:"rows"`
	Columns    int     `json:"columns"`
	DurationMS float64 `json:"duration_ms"`
	Message    string  `json:"message"`
}

// ParseTimestamp parses a timestamp written by Timestamp.
func ParseTimestamp(s string) (time.Time, error) {
	return time.ParseInLocation(TimeFormat, s, time.UTC)
}

// JobLimits bound what one job may hold and how long it may run; zero
// fields take the defaults. A pipeline may ask for its own ("limits" in
// its document), within the tenant's maximum.
type JobLimits struct {
	// MaxRows bounds the rows of any table a step produces.
	MaxRows int64 `json:"max_rows,omitempty" yaml:"max_rows,omitempty"`
	// MaxMemoryMB bounds the memory of the tables the job holds at once
	// (the current table and its temp- datasets), in MB.
	MaxMemoryMB float64 `json:"max_memory_mb,omitempty" yaml:"max_memory_mb,omitempty"`
	// MaxSeconds bounds the job's run time.
	MaxSeconds float64 `json:"max_seconds,omitempty" yaml:"max_seconds,omitempty"`
}

// DefaultJobLimits are a job's limits unless its pipeline asks for others.
var DefaultJobLimits = JobLimits{MaxRows: 10_000_000, MaxMemoryMB: 2048, MaxSeconds: 3600}

// MaxJobLimits are the most a pipeline may ask for, unless the tenant's
// workers are configured with other maxima.
var MaxJobLimits = JobLimits{MaxRows: 200_000_000, MaxMemoryMB: 8192, MaxSeconds: 24 * 3600}

// Within returns the limits asked (defaults for zero fields), or an error
// naming the first that is above max.
func (asked JobLimits) Within(def, max JobLimits) (JobLimits, error) {
	l := asked
	if l.MaxRows == 0 {
		l.MaxRows = def.MaxRows
	}
	if l.MaxMemoryMB == 0 {
		l.MaxMemoryMB = def.MaxMemoryMB
	}
	if l.MaxSeconds == 0 {
		l.MaxSeconds = def.MaxSeconds
	}
	switch {
	case l.MaxRows < 0 || l.MaxMemoryMB < 0 || l.MaxSeconds < 0:
		return l, fmt.Errorf("job limits must be positive: %+v", asked)
	case max.MaxRows > 0 && l.MaxRows > max.MaxRows:
		return l, fmt.Errorf("limits: max_rows %d is above the tenant's maximum of %d", l.MaxRows, max.MaxRows)
	case max.MaxMemoryMB > 0 && l.MaxMemoryMB > max.MaxMemoryMB:
		return l, fmt.Errorf("limits: max_memory_mb %g is above the tenant's maximum of %g", l.MaxMemoryMB, max.MaxMemoryMB)
	case max.MaxSeconds > 0 && l.MaxSeconds > max.MaxSeconds:
		return l, fmt.Errorf("limits: max_seconds %g is above the tenant's maximum of %g", l.MaxSeconds, max.MaxSeconds)
	}
	return l, nil
}

// BotLogarchiveReplay is the worker bot logarchive-replay runs, as a job
// on a worker of the site it names: it replays a log archive's minutes
// into a stream.
const BotLogarchiveReplay = "@dm:logarchive-replay"

// BotBotsBySource is the worker bot bots-by-source runs: it lists the
// worker's bots by the source they reach.
const BotBotsBySource = "@dm:bots-by-source"

// BotCheckCredentials is the worker bot check-credentials runs: it
// checks the sources a configuration names from the worker.
const BotCheckCredentials = "@dm:check-credentials"
