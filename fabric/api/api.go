// Package api is the protocol shared by the client and the pods: subject
// and bucket names, pod types and categories, and the wire types of pod
// info (SPEC 2.1), health rows (SPEC 2.15) and controller status. Names of
// subjects and buckets live here and nowhere else.
package api

import (
	"fmt"
	"sort"
	"time"
)

// Pod types.
const (
	APIServer    = "api-server"
	Scheduler    = "scheduler"
	Worker       = "worker"
	EventGateway = "event-gateway"
	// GraphDB is the embedded graph database: ArangoDB's HTTP API over
	// a store of its own.
	GraphDB = "graphdb"
	// Portal serves the tenant's dashboards to a browser.
	Portal = "portal"
)

// PackReportsFolder is the object folder of the pack compare reports
// (report.html) the portal serves; it keeps MaxPackReports of them, the
// newest.
const PackReportsFolder = "portal/pack-reports"

// MaxPackReports is how many pack compare reports the portal keeps.
const MaxPackReports = 50

// Pod categories: each type's is in its registration (package runner).
const (
	CategoryInfra = "infra"
	CategoryApp   = "app"
)

// IsAgent reports whether pods of a type are agents (listed by agents()).
func IsAgent(podType string) bool { return podType == EventGateway }

// PodTypes lists the known pod types, as the shell knows them: the same
// as the pods' registrations (runner.Types; TestTypesMatchAPI fails when
// a type is in one and not the other).
var PodTypes = []string{APIServer, Scheduler, Worker, EventGateway, GraphDB, Portal}

// LoadPerCPU is the one-minute load average per CPU above which a pod
// takes no more work by default: the figure 7.0 of the reference
// capacity filter, counted per CPU of the pod's host, so that a busy small
// host is not refused every job and a large one is not overloaded.
const LoadPerCPU = 7.0

// DefaultCapacityFilter is a pod's capacity filter unless configured, on a
// host of cpus CPUs: its load limit is LoadPerCPU times cpus ("cpu_load1
// <= 14.0 and mem_percent < 98 and pod_usage_active_jobs < 20" on two).
func DefaultCapacityFilter(cpus int) string {
	if cpus < 1 {
		cpus = 1
	}
	return fmt.Sprintf("cpu_load1 <= %.1f and mem_percent < 98 and pod_usage_active_jobs < 20", LoadPerCPU*float64(cpus))
}

// Buckets of the tenant's JetStream.
const (
	// PodsBucket is the registry of live pods: key pod_id, value a
	// Registration, refreshed by each pod and expiring when it stops.
	PodsBucket = "fabric_pods"
	// LeasesBucket holds leader leases (key: the pod type that elects).
	LeasesBucket = "fabric_leases"
	// ObjectsBucket is the tenant's object store: dataset data files and
	// objects.
	ObjectsBucket = "fabric_objects"
	// DatasetsBucket holds dataset records (SPEC 2.6), key: the name.
	DatasetsBucket = "fabric_datasets"
	// BoundedBucket holds schema-bounded dataset records.
	BoundedBucket = "fabric_bounded"
	// ObjectRecordsBucket holds object records (SPEC 2.7), key: folder/name.
	ObjectRecordsBucket = "fabric_object_records"
	// SchemasBucket holds schema artifacts (JSON Schema documents).
	SchemasBucket = "fabric_schemas"
)

// Dataset is a dataset record (SPEC 2.6).
type Dataset struct {
	Name       string            `json:"name"`
	Format     string            `json:"format"`
	Datafile   string            `json:"datafile"`
	MemSizeMB  float64           `json:"mem_size_mb"`
	NumRows    int64             `json:"num_rows"`
	NumColumns int               `json:"num_columns"`
	SavedTime  string            `json:"saved_time"`
	DTypes     map[string]string `json:"dtypes"`
	Folder     string            `json:"folder,omitempty"`
	FileSize   int64             `json:"file_size"`
	Columns    []string          `json:"columns"`
}

// BoundedDataset is a schema-bounded dataset record (SPEC 2.6): the data
// validated against a schema, and drafts of imports not yet published.
type BoundedDataset struct {
	Name       string            `json:"name"`
	Schema     string            `json:"schema"`
	Drafts     []string          `json:"drafts"`
	MemSizeMB  float64           `json:"mem_size_mb"`
	NumRows    int64             `json:"num_rows"`
	NumColumns int               `json:"num_columns"`
	SavedTime  string            `json:"saved_time"`
	Datafile   string            `json:"datafile"`
	DTypes     map[string]string `json:"dtypes"`
}

// Object is an object record (SPEC 2.7).
type Object struct {
	Name        string `json:"name"`
	Folder      string `json:"folder"`
	Description string `json:"description"`
	SavedTime   string `json:"saved_time"`
	DataPath    string `json:"data_path"`
	FileType    string `json:"file_type"`
	FileSize    int64  `json:"file_size"`
}

// Schema is a schema artifact: a JSON Schema document by name.
type Schema struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	SavedTime   string `json:"saved_time"`
	Schema      any    `json:"schema"`
}

// Subjects. Every tenant is a NATS account, so these names never collide
// between tenants.
const (
	// SubjectPods asks the api-server for the info of every live pod.
	SubjectPods = "fabric.api.pods"
	// SubjectHealth asks the api-server for the health rows of every pod.
	SubjectHealth = "fabric.api.health"
	// SubjectStatus asks the api-server for every pod's controller status.
	SubjectStatus = "fabric.api.status"
	// SubjectGC asks the api-server to sweep the tenant's unreferenced
	// data (a GCRequest; the answer is a gc report).
	SubjectGC = "fabric.api.gc"
	// QueueAPIServer is the queue group of the api-server's endpoints.
	QueueAPIServer = "api-server"
)

// Pod endpoints, each at PodSubject(id, endpoint).
const (
	EndpointInfo    = "info"
	EndpointHealth  = "health"
	EndpointStatus  = "status"
	EndpointRestart = "restart"
)

// PodSubject returns the direct subject of a pod's endpoint.
func PodSubject(podID, endpoint string) string {
	return fmt.Sprintf("fabric.pod.%s.%s", podID, endpoint)
}

// AutoSubject returns the type-wide subject of a pod type: any one pod of
// the type answers (a queue group named after the type).
func AutoSubject(podType string) string { return fmt.Sprintf("fabric.%s.auto", podType) }

// Registration is a pod's entry in the PodsBucket registry.
type Registration struct {
	PodID    string `json:"pod_id"`
	PodType  string `json:"pod_type"`
	Site     string `json:"site_name"`
	Hostname string `json:"hostname"`
}

// PodInfo is what a pod answers to info (SPEC 2.1).
type PodInfo struct {
	Now            string       `json:"now"`
	StartedAt      string       `json:"started_at"`
	PodType        string       `json:"pod_type"`
	PodCategory    string       `json:"pod_category"`
	PodID          string       `json:"pod_id"`
	Hostname       string       `json:"hostname"`
	ProcID         int          `json:"proc_id"`
	Labels         Labels       `json:"labels"`
	BuildTag       string       `json:"build_tag"`
	Requests       Requests     `json:"requests"`
	Resources      Resources    `json:"resources"`
	PodLeader      bool         `json:"pod_leader"`
	ObjstoreInfo   ObjstoreInfo `json:"objstore_info"`
	Group          string       `json:"group"`
	GroupID        string       `json:"group_id"`
	SiteName       string       `json:"site_name"`
	SiteID         string       `json:"site_id"`
	PublicAccess   bool         `json:"public_access"`
	CapacityFilter string       `json:"capacity_filter"`
	LocalTime      float64      `json:"_local_time"`
	// Maintenance is whether the pod is in maintenance mode: it takes
	// no new jobs (see EndpointMaintenance).
	Maintenance bool `json:"maintenance"`
	// Runtimes are the bot runtimes the pod runs, by name (RuntimeStarlark:
	// the Starlark dialect of its bot packages' bots); absent on a pod that
	// runs no bots or does not advertise them.
	Runtimes map[string]string `json:"runtimes,omitempty"`
}

// RuntimeStarlark is the PodInfo.Runtimes key of the Starlark runtime of
// bot packages: its value is the dialect's version.
const RuntimeStarlark = "starlark"

// Labels of a pod (SPEC 2.1).
type Labels struct {
	TenantName            string `json:"tenant_name"`
	PlatformVersion       string `json:"fx_platform_version"`
	MessengerVersion      string `json:"fx_messenger_version"`
	PodVersion            string `json:"fx_pod_version"`
	LicenseValid          string `json:"fx_license_valid"`
	LicenseNotExpired     string `json:"fx_license_not_expired"`
	LicenseExpirationDate string `json:"fx_license_expiration_date"`
}

// Requests are the subjects a pod takes requests on.
type Requests struct {
	Auto   string `json:"auto"`
	Direct string `json:"direct"`
}

// Resources are a pod's live resource figures.
type Resources struct {
	CPUCount           int     `json:"cpu_count"`
	CPULoad1           float64 `json:"cpu_load1"`
	CPULoad5           float64 `json:"cpu_load5"`
	CPULoad15          float64 `json:"cpu_load15"`
	MemTotalGB         float64 `json:"mem_total_gb"`
	MemAvailableGB     float64 `json:"mem_available_gb"`
	MemPercent         float64 `json:"mem_percent"`
	MemUsedGB          float64 `json:"mem_used_gb"`
	MemFreeGB          float64 `json:"mem_free_gb"`
	MemActiveGB        float64 `json:"mem_active_gb"`
	MemInactiveGB      float64 `json:"mem_inactive_gb"`
	PodUsageActiveJobs int     `json:"pod_usage_active_jobs"`
	PodUsageTotalJobs  int     `json:"pod_usage_total_jobs"`
}

// ObjstoreInfo says where a pod's object store is.
type ObjstoreInfo struct {
	Host           string `json:"host"`
	ConfigChecksum string `json:"config_checksum"`
}

// HealthRow is one health parameter of one pod (SPEC 2.15).
type HealthRow struct {
	Cat       string `json:"cat"`
	PodType   string `json:"pod_type"`
	Host      string `json:"host"`
	ID        string `json:"pod_id"`
	Site      string `json:"site_name"`
	Parameter string `json:"health_parameter"`
	Status    string `json:"status"`
	Message   string `json:"message"`
}

// Health statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// ControllerStatus is a pod's status as its controller reports it.
type ControllerStatus struct {
	PodID     string `json:"pod_id"`
	PodType   string `json:"pod_type"`
	Hostname  string `json:"hostname"`
	ProcID    int    `json:"proc_id"`
	SiteName  string `json:"site_name"`
	State     string `json:"state"`
	Restarts  int    `json:"restarts"`
	StartedAt string `json:"started_at"`
}

// Error is the body of a failed request: {"error": "..."}.
type Error struct {
	Error string `json:"error"`
}

// TimeFormat is how timestamps are written: ISO 8601 without a zone, UTC.
const TimeFormat = "2006-01-02T15:04:05.000000"

// Timestamp formats t as the protocol writes times.
func Timestamp(t time.Time) string { return t.UTC().Format(TimeFormat) }

// SortPods orders pods as tables show them: infra first, then by type,
// site and id.
func SortPods(infos []PodInfo) {
	sort.Slice(infos, func(i, j int) bool {
		a, b := infos[i], infos[j]
		if a.PodCategory != b.PodCategory {
			return a.PodCategory == CategoryInfra
		}
		if a.PodType != b.PodType {
			return a.PodType < b.PodType
		}
		if a.SiteName != b.SiteName {
			return a.SiteName < b.SiteName
		}
		return a.PodID < b.PodID
	})
}

// GCTimeout bounds one sweep of unreferenced data, and a client's wait
// for it.
const GCTimeout = 2 * time.Minute

// GCRequest asks for a sweep of unreferenced data older than Grace (a Go
// duration, "15m"; empty: the default), only reporting with DryRun.
type GCRequest struct {
	DryRun bool   `json:"dry_run"`
	Grace  string `json:"grace,omitempty"`
}

// GCReport says what a sweep of unreferenced data found and freed.
type GCReport struct {
	// DryRun is set when nothing was removed.
	DryRun bool `json:"dry_run"`
	// Blobs are the stored files no record names, older than the grace.
	Blobs []string `json:"blobs"`
	// BlobBytes is their size.
	BlobBytes int64 `json:"blob_bytes"`
	// Uploads counts the uploads that never completed, older than the
	// grace, and Chunks their chunks.
	Uploads int    `json:"uploads"`
	Chunks  uint64 `json:"chunks"`
	// Young counts what was unreferenced but younger than the grace, and
	// left alone.
	Young int `json:"young"`
	// Freed is how many bytes the store shrank by.
	Freed uint64 `json:"freed_bytes"`
}
