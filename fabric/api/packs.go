package api

import "time"

// Buckets and paths of packs (SPEC 2.11, 4.10).
const (
	// PacksBucket holds the catalogue of a tenant's uploaded packs, a
	// PackRecord each, keyed by PackKey.
	PacksBucket = "fabric_packs"
	// PackActivationsBucket holds what each activation, single-tenant
	// enablement and customer enablement of a pack created, a
	// PackActivation each, keyed by PackActivationKey: deactivation
	// works from it, from any client and after any restart.
	PackActivationsBucket = "fabric_pack_activations"
	// PackBlobPrefix starts the object store paths of uploaded packs.
	PackBlobPrefix = "_packs/"
)

// Subjects of the api-server's pack transactions (a PackRequest each;
// the answer: PackResult, or an Error).
const (
	// SubjectPackActivate deploys a scope of an uploaded pack: its
	// common artifacts (activate), its single-tenant ones or those of a
	// customer tag, all or nothing.
	SubjectPackActivate = "fabric.api.pack.activate"
	// SubjectPackDeactivate removes what an activation or enablement
	// created, and nothing else.
	SubjectPackDeactivate = "fabric.api.pack.deactivate"
)

// PackTimeout bounds an activation or deactivation on the api-server;
// PackUndoTimeout bounds the undoing of a failed one.
const (
	PackTimeout     = 2 * time.Minute
	PackUndoTimeout = time.Minute
)

// Activation states of a PackActivation.
const (
	// PackActivating: an activation is under way (or its api-server
	// stopped half-way: deactivate --force removes what it wrote).
	PackActivating = "activating"
	// PackActivated: every artifact of the scope is deployed.
	PackActivated = "ACTIVATED"
)

// Statuses of a pack's result rows.
const (
	PackSuccess = "Success"
	PackSkipped = "Skipped"
)

// PackRecord is a pack of the catalogue.
type PackRecord struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	Publisher   string `json:"publisher,omitempty"`
	// Blob is where the pack's .tar.gz is in the object store.
	Blob string `json:"blob"`
	Size int64  `json:"size"`
	// Artifacts counts the pack's artifacts by scope.
	Artifacts    map[string]int `json:"artifacts"`
	UploadedTime string         `json:"uploaded_time"`
}

// PackRequest asks for an activation (Scope common), an enablement
// (single_tenant, customer with CustomerTag) or their undoing.
type PackRequest struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Scope       string `json:"scope"`
	CustomerTag string `json:"customer_tag,omitempty"`
	// Inputs are the deploy variables' values; a value may be a
	// reference to a secret ({"$secret": "name"}).
	Inputs map[string]any `json:"inputs,omitempty"`
	// Force deactivates what is only partly deployed.
	Force bool `json:"force,omitempty"`
}

// PackRow is a result row of an activation, an enablement or their
// undoing (SPEC 2.11).
type PackRow struct {
	Type            string `json:"type"`
	Name            string `json:"name"`
	Status          string `json:"status"`
	PipelineVersion string `json:"pipeline_version,omitempty"`
	BlueprintID     string `json:"blueprint_id,omitempty"`
}

// PackResult is the answer to a PackRequest.
type PackResult struct {
	Rows []PackRow `json:"rows"`
}

// PackCreated is an artifact an activation created: what deactivation
// deletes.
type PackCreated struct {
	Type string `json:"type"`
	Name string `json:"name"`
	// Version is the pipeline version it added.
	Version string `json:"version,omitempty"`
	// Checksum is that of the rendered artifact.
	Checksum string `json:"checksum,omitempty"`
}

// PackActivation is the record of an activation or enablement.
type PackActivation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Scope       string `json:"scope"`
	CustomerTag string `json:"customer_tag,omitempty"`
	State       string `json:"state"`
	// Created are the artifacts it created, in the order it wrote them.
	Created []PackCreated `json:"created"`
	// Rows are its result rows.
	Rows []PackRow `json:"rows"`
	// Site is the context variable site it was rendered with (the
	// api-server's site).
	Site string `json:"site,omitempty"`
	// Inputs are the inputs it was given that may be kept: the values of
	// variables that are not secret, and references to secrets (an
	// enablement of the pack's other scopes starts from those of its
	// activation).
	Inputs map[string]any `json:"inputs,omitempty"`
	Time   string         `json:"time"`
}
