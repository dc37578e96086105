package worker

import (
	"encoding/json"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/streams"
)

// ResourcesPeriod is how often a worker writes its resource usage to the
// system stream api.StreamWorkerResources.
var ResourcesPeriod = 30 * time.Second

// resourceRecord is a record of api.StreamWorkerResources: the pod's
// resources (SPEC 2.1) and who and when.
type resourceRecord struct {
	Timestamp string `json:"timestamp"`
	PodID     string `json:"pod_id"`
	Hostname  string `json:"hostname"`
	Site      string `json:"site_name"`
	api.Resources
}

// traceSummary is a record of api.StreamTraceSummaries: how a job ended.
type traceSummary struct {
	Timestamp  string  `json:"timestamp"`
	JobID      string  `json:"jobid"`
	Pipeline   string  `json:"pipeline"`
	Version    string  `json:"version"`
	PodID      string  `json:"pod_id"`
	Hostname   string  `json:"hostname"`
	Site       string  `json:"site_name"`
	Status     string  `json:"status"`
	Reason     string  `json:"reason"`
	Rows       int64   `json:"rows"`
	DurationMS float64 `json:"duration_ms"`
}

// publishRecord writes v to a system stream, not waiting for the
// stream's acknowledgement: telemetry must not slow jobs down, and a
// record lost while the stream is away is not worth a retry.
func (w *Worker) publishRecord(stream string, v any) {
	data, err := json.Marshal(v)
	if err == nil {
		_ = w.p.Conn().Publish(streams.Subject(stream), data)
	}
}

// reportResources writes the pod's resource usage every ResourcesPeriod
// (the first a period after the start) until it stops.
func (w *Worker) reportResources() {
	t := time.NewTicker(ResourcesPeriod)
	defer t.Stop()
	for {
		select {
		case <-w.p.Done():
			return
		case <-t.C:
		}
		info := w.p.Info()
		w.publishRecord(api.StreamWorkerResources, resourceRecord{Timestamp: api.Timestamp(time.Now()), PodID: w.p.ID,
			Hostname: info.Hostname, Site: info.SiteName, Resources: info.Resources})
	}
}

// jobEnded logs a job's end and writes its summary.
func (w *Worker) jobEnded(job api.Job, status, reason string, rows int64, took time.Duration) {
	if reason != "" {
		w.p.Infof(api.LoggerJobs, "job %s (%s) %s in %s: %s", job.JobID, job.Pipeline, status, took.Round(time.Millisecond), reason)
	} else {
		w.p.Infof(api.LoggerJobs, "job %s (%s) %s in %s", job.JobID, job.Pipeline, status, took.Round(time.Millisecond))
	}
	w.p.Debugf(api.LoggerJobs, "jobs: job %s finished: %s, %d rows out, %d steps, in %s", job.JobID, status, rows, job.Steps, took)
	w.publishRecord(api.StreamTraceSummaries, traceSummary{Timestamp: api.Timestamp(time.Now()), JobID: job.JobID, Pipeline: job.Pipeline,
		Version: job.Version, PodID: w.p.ID, Hostname: w.host, Site: job.Site, Status: status, Reason: reason, Rows: rows,
		DurationMS: float64(took.Microseconds()) / 1000})
}
