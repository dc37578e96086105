package api

import (
	"fmt"
	"strings"
	"time"
)

// SubjectBundleDeploy asks the api-server to deploy a bundle as one
// transaction, or to compare it with what the tenant has (a
// BundleDeployRequest; the answer: []BundleRow, or an Error). The
// bundle's files are not in the request: the client stages them in the
// tenant's object store first, under BundleStagePrefix, and the request
// names them; the api-server reads them from there and deletes them,
// whatever the outcome.
const SubjectBundleDeploy = "fabric.api.bundle-deploy"

// BundleStagePrefix starts the object store paths of the files of a
// bundle staged for a deployment; the api-server reads and deletes no
// others. Staged files that no deployment took (a client and an
// api-server gone half-way) are unreferenced data, which the api-server's
// sweep removes once they are older than its grace (15 minutes).
const BundleStagePrefix = "_bundles/"

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

// Bounds of a bundle deployment, which the client (reading the archive)
// and the api-server (reading the staged files, each size checked before
// it is read) both hold.
const (
	// MaxBundleFile bounds one file of a bundle.
	MaxBundleFile = 16 << 20
	// MaxBundleSize bounds the files of a bundle together.
	MaxBundleSize = 256 << 20
	// MaxBundleFiles bounds the files of one BundleDeployRequest.
	MaxBundleFiles = 1000
	// BundleStageTimeout bounds a client's staging of a bundle's files in
	// the object store (256 MiB at 1 MB/s and more); it is well under the
	// sweep's grace, so that no staged file is swept while it is used.
	BundleStageTimeout = 5 * time.Minute
	// BundleDeployTimeout bounds the api-server's planning and writing of
	// a bundle; BundleUndoTimeout bounds its undoing of a failed one.
	BundleDeployTimeout = 2 * time.Minute
	BundleUndoTimeout   = 30 * time.Second
	// BundleWait bounds a client's wait for the api-server's answer: the
	// deployment, its undoing and some room for the messages.
	BundleWait = BundleDeployTimeout + BundleUndoTimeout + 10*time.Second
)

// BundleFile is a document of a bundle, staged in the tenant's object
// store.
type BundleFile struct {
	// Type is BundlePipeline, BundleBlueprint or BundleDashboard.
	Type string `json:"type"`
	// Path is where the file is in the archive (cleaned: no "./").
	Path string `json:"path"`
	// Blob is where the file's content is staged: a path of the tenant's
	// object store under BundleStagePrefix.
	Blob string `json:"blob"`
	// Size is the content's size in bytes, as the client staged it (the
	// api-server checks the staged blob's own size too).
	Size int64 `json:"size"`
}

// BundleDeployRequest asks the api-server to deploy the bundle's Files of
// Types (none: all), or, with Compare, only to say how each differs from
// what the tenant has, writing nothing. The api-server deletes the
// staged Files whatever the outcome.
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

// Staged reports whether blob is a path where a bundle's file may be
// staged: under BundleStagePrefix, without "." or ".." parts.
func Staged(blob string) bool {
	rest, ok := strings.CutPrefix(blob, BundleStagePrefix)
	if !ok || rest == "" {
		return false
	}
	for _, p := range strings.Split(rest, "/") {
		if p == "" || p == "." || p == ".." {
			return false
		}
	}
	return true
}

// BundleFilesError is the refusal of a bundle of n files when n is more
// than MaxBundleFiles, else nil.
func BundleFilesError(n int) error {
	if n <= MaxBundleFiles {
		return nil
	}
	return fmt.Errorf("%d files in the bundle, more than the %d a deployment takes: deploy it as smaller bundles", n, MaxBundleFiles)
}

// BundleSizeError is the refusal of the bundle's file path of size bytes
// when that is more than MaxBundleFile, or when it makes the bundle's
// files hold more than MaxBundleSize in all (total, with it); else nil.
func BundleSizeError(path string, size, total int64) error {
	switch {
	case size > MaxBundleFile:
		return fmt.Errorf("%s: %d bytes, more than the %d MiB a bundle file may hold", path, size, MaxBundleFile>>20)
	case total > MaxBundleSize:
		return fmt.Errorf("%s: the bundle's files hold more than %d MiB", path, MaxBundleSize>>20)
	}
	return nil
}
