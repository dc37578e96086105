package api

import "time"

// Persistent streams (SPEC 6): named streams of records (JSON objects) in
// the tenant's JetStream. The system streams below exist in every tenant;
// users add their own with pstream add.
const (
	// StreamWorkerResources receives each worker's resource usage (the
	// resources of SPEC 2.1 with pod_id, hostname, site_name, timestamp)
	// every WorkerResourcesPeriod.
	StreamWorkerResources = "fabric_worker_resource_usage"
	// StreamTraceSummaries receives one record per job that ended: job
	// id, pipeline, version, pod, status, reason, steps, rows, duration.
	StreamTraceSummaries = "fabric_worker_trace_summaries"
	// StreamDeploymentUpdates receives the deployment controller's
	// activity (SPEC 6: timestamp, severity, message).
	StreamDeploymentUpdates = "fabric_deployment_updates"
	// StreamGatewayMetrics receives each event gateway endpoint's
	// counters every GatewayMetricsPeriod.
	StreamGatewayMetrics = "fabric_gateway_endpoint_metrics"
	// StreamGatewayErrors keeps what event gateways could not parse, as
	// received (SPEC 6; the error stream).
	StreamGatewayErrors = "fabric_gateway_errors"
	// StreamSynthetics receives the result of each run of a synthetic
	// profile's check (package synthetics: profile, check, component,
	// target, site, status up/warning/down, reason, latency, HTTP
	// status, certificate days left).
	StreamSynthetics = "fabric_synthetics_results"
)

// The bounds of StreamGatewayErrors, what a tenant sending garbage to its
// endpoints can make it hold: streams.EnsureSystem makes the stream with
// them, and the gateways cut each record to them.
const (
	// GatewayErrorsMaxBytes bounds the stream's size: the oldest records
	// go first.
	GatewayErrorsMaxBytes = 32 << 20
	// GatewayErrorsMaxAge bounds a record's age.
	GatewayErrorsMaxAge = 24 * time.Hour
	// GatewayErrorRawMaxBytes bounds the input one record keeps: longer
	// input is cut, and the record says so.
	GatewayErrorRawMaxBytes = 4 << 10
	// GatewayErrorTextMaxBytes bounds the reason one record gives.
	GatewayErrorTextMaxBytes = 512
	// GatewayErrorRecordMaxBytes bounds one record (the stream's
	// largest message): its input (hex for SNMP doubles it, JSON escapes
	// up to six times it), its reason and its fields.
	GatewayErrorRecordMaxBytes = 6*2*GatewayErrorRawMaxBytes + 6*GatewayErrorTextMaxBytes + 4096
)

// SystemStreams are the streams every tenant has, which users cannot
// delete.
var SystemStreams = []string{StreamWorkerResources, StreamTraceSummaries, StreamDeploymentUpdates, StreamGatewayMetrics, StreamGatewayErrors, StreamSynthetics}

// IsSystemStream reports whether name is one of SystemStreams.
func IsSystemStream(name string) bool {
	for _, s := range SystemStreams {
		if s == name {
			return true
		}
	}
	return false
}

// StreamSubjectPrefix begins the subject of every persistent stream: the
// stream with key K (store.Key of its name) takes the messages published
// on StreamSubjectPrefix + K.
const StreamSubjectPrefix = "fabric.ps."

// SubjectLogs begins the subjects of the pods' log lines: each pod
// publishes its lines (LogLine) on SubjectLogs.<pod_type>.<pod_id>.
const SubjectLogs = "fabric.logs"

// LogSubject returns the subject of a pod's log lines.
func LogSubject(podType, podID string) string { return SubjectLogs + "." + podType + "." + podID }

// LogLine is a line a pod logged (watch logs).
type LogLine struct {
	Time    string `json:"time"`
	PodType string `json:"pod_type"`
	PodID   string `json:"pod_id"`
	// Level and Logger are the line's level (LogLevels) and the part
	// of the pod that logged it (LoggersOf).
	Level   string `json:"level,omitempty"`
	Logger  string `json:"logger,omitempty"`
	Message string `json:"message"`
}

// Change is a change of a record in one of the tenant's KV buckets
// (watch changes): an artifact, a dataset, an object, a job...
type Change struct {
	Time      string `json:"time"`
	Bucket    string `json:"bucket"`
	Key       string `json:"key"`
	Operation string `json:"operation"` // put, delete or purge
	Revision  uint64 `json:"revision"`
}
