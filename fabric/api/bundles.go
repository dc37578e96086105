package api

import "time"

// SubjectBundleDeploy asks the api-server to deploy a bundle as one
// transaction, or to compare it with what the tenant has (a
// BundleDeployRequest; the answer: []BundleRow, or an Error).
const SubjectBundleDeploy = "fabric.api.bundle-deploy"

// Types of the artifacts a bundle holds, in the order they deploy: a
// blueprint may run the bundle's pipelines, a dashboard may show what the
// blueprints' pipelines write.
const (
	BundlePipeline  = "pipeline"
	BundleBlueprint = "blueprint"
	BundleDashboard = "dashboard"
)

// BundleTypes are the types of a bundle's artifacts in deployment order.
var BundleTypes = []string{BundlePipeline, BundleBlueprint, BundleDashboard}

// Changes of a bundle's artifact against what the fabric has.
const (
	ChangeNew       = "new"
	ChangeChanged   = "changed"
	ChangeUnchanged = "unchanged"
)

// Bounds of a bundle deployment in the api-server.
const (
	// MaxBundleFiles bounds the files of one BundleDeployRequest. The
	// bytes of a request are bounded by the fabric's message limit (NATS
	// max_payload, 1 MB by default), which NATS enforces.
	MaxBundleFiles = 1000
	// BundleDeployTimeout bounds the api-server's planning and writing of
	// a bundle; BundleUndoTimeout bounds its undoing of a failed one.
	BundleDeployTimeout = 2 * time.Minute
	BundleUndoTimeout   = 30 * time.Second
	// BundleWait bounds a client's wait for the api-server's answer: the
	// deployment, its undoing and some room for the messages.
	BundleWait = BundleDeployTimeout + BundleUndoTimeout + 10*time.Second
)

// BundleFile is a document of a bundle.
type BundleFile struct {
	// Type is BundlePipeline, BundleBlueprint or BundleDashboard.
	Type string `json:"type"`
	// Path is where the file is in the archive (cleaned: no "./").
	Path string `json:"path"`
	// Data is the file's content.
	Data []byte `json:"data"`
}

// BundleDeployRequest asks the api-server to deploy the bundle's Files of
// Types (none: all), or, with Compare, only to say how each differs from
// what the tenant has, writing nothing.
type BundleDeployRequest struct {
	Files   []BundleFile `json:"files"`
	Types   []string     `json:"types,omitempty"`
	Compare bool         `json:"compare,omitempty"`
}

// BundleRow is an artifact of a bundle, as bundle-deploy reports it.
type BundleRow struct {
	// Type is BundlePipeline, BundleBlueprint or BundleDashboard.
	Type string `json:"type"`
	// Name is the artifact's name (a blueprint's name; its id is
	// BlueprintID).
	Name string `json:"name"`
	// Change is ChangeNew, ChangeChanged or ChangeUnchanged: the bundle's
	// artifact against what the fabric had.
	Change string `json:"change"`
	// File is the artifact's file in the bundle.
	File string `json:"file"`
	// PipelineVersion is a pipeline's version: the one added, or the
	// latest when it was unchanged ("" for a new one that is compared).
	PipelineVersion string `json:"pipeline_version,omitempty"`
	// BlueprintID is a blueprint's id.
	BlueprintID string `json:"blueprint_id,omitempty"`
}
