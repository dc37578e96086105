package api

// PipelinesBucket holds pipeline records (SPEC 2.10), one per version, key
// "<name>.<version>" (the name as a store key).
const PipelinesBucket = "fabric_pipelines"

// Pipeline types: the folder a pipeline is kept in.
const (
	PipetypePublished = "Published"
	PipetypeDraft     = "Draft"
)

// Pipetypes lists the pipeline types.
var Pipetypes = []string{PipetypePublished, PipetypeDraft}

// Source formats of a pipeline: the form it was written in when added.
// convert-to-json turns YAML ones into JSON.
const (
	PipelineYAML = "yaml"
	PipelineJSON = "json"
	PipelineText = "text"
)

// Pipeline is a pipeline record (SPEC 2.10). Version is YYYY_MM_DD_N, the
// Nth version of the name saved that day (UTC).
type Pipeline struct {
	Name        string                    `json:"name"`
	Description string                    `json:"description"`
	Usecase     string                    `json:"usecase"`
	Category    string                    `json:"category"`
	Version     string                    `json:"version"`
	Sources     map[string]PipelineSource `json:"sources,omitempty"`
	Data        PipelineData              `json:"data"`
	Artifacts   []PipelineArtifact        `json:"artifacts,omitempty"`
	HTMLData    string                    `json:"html_data,omitempty"`
	// Limits are the pipeline's own job limits (see JobLimits).
	Limits *JobLimits `json:"limits,omitempty"`
	// SavedTime is when this version was saved (TimeFormat, UTC).
	SavedTime string `json:"saved_time,omitempty"`
	// Pipetype is Published or Draft.
	Pipetype string `json:"pipetype,omitempty"`
	// Format is the form the pipeline is kept in: yaml, json or text (the
	// one it was added in, until convert-to-json).
	Format string `json:"format,omitempty"`
}

// PipelineSource is a source a pipeline reads from.
type PipelineSource struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// PipelineData is a pipeline's body: its steps.
type PipelineData struct {
	Name     string         `json:"name"`
	Sequence []PipelineStep `json:"sequence"`
}

// PipelineStep is one bot of a pipeline: its tag (@ns:bot, *ns:bot or
// #ns:bot), the query that follows it, and a comment.
type PipelineStep struct {
	Tag     string `json:"tag"`
	Query   string `json:"query"`
	Comment string `json:"comment"`
}

// PipelineArtifact is an artifact a pipeline uses, with its access (e.g.
// write).
type PipelineArtifact struct {
	ArtifactType string `json:"artifact_type"`
	ArtifactName string `json:"artifact_name"`
	Access       string `json:"access"`
}
