package api

// EndpointObjInfo is the pod endpoint (every pod answers it; the
// worker-obj-info command asks the workers) that reports the pod's object
// store: its connection, the tenant's object store buckets and their
// usage, and the tenant's storage limit (an ObjInfo, or an Error).
const EndpointObjInfo = "objinfo"

// ObjInfo is a pod's object store as it sees it.
type ObjInfo struct {
	PodID    string `json:"pod_id"`
	PodType  string `json:"pod_type"`
	Hostname string `json:"hostname"`
	SiteName string `json:"site_name"`
	// Server is the NATS server the pod is connected to (its URL, any
	// credentials redacted); ObjstoreHost the host its info names.
	Server       string `json:"server"`
	ObjstoreHost string `json:"objstore_host"`
	// Bucket is the tenant's object store (ObjectsBucket); Buckets every
	// object store bucket of the tenant with its usage.
	Bucket  string      `json:"bucket"`
	Buckets []ObjBucket `json:"buckets"`
	// StorageUsedBytes is what the tenant's JetStream stores on disk;
	// StorageLimitBytes the most it may (-1: no limit).
	StorageUsedBytes  uint64 `json:"storage_used_bytes"`
	StorageLimitBytes int64  `json:"storage_limit_bytes"`
}

// ObjBucket is an object store bucket's usage: its objects (not deleted)
// and the bytes its stream holds.
type ObjBucket struct {
	Bucket   string `json:"bucket"`
	Objects  int    `json:"objects"`
	Bytes    uint64 `json:"bytes"`
	Storage  string `json:"storage"`
	Replicas int    `json:"replicas"`
	Sealed   bool   `json:"sealed"`
}

// ObjInfoReport is what the workers asked by worker-obj-info answered:
// their ObjInfos (by pod id), how many answered and how many were asked.
type ObjInfoReport struct {
	Pods      []ObjInfo `json:"pods"`
	Responded int       `json:"responded"`
	Targeted  int       `json:"targeted"`
	Missing   []string  `json:"missing,omitempty"`
}
