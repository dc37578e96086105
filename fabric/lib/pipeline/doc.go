package pipeline

// The forms a pipeline document is written in (Form); a stored record
// keeps the one it was added in.
const (
	FormYAML = "yaml"
	FormJSON = "json"
	FormText = "text"
)

// The pipeline types: the folder a pipeline is kept in.
const (
	Published = "Published"
	Draft     = "Draft"
)

// Pipetypes lists the pipeline types.
var Pipetypes = []string{Published, Draft}

// Pipeline is a pipeline document as Load reads it (SPEC 2.10). The
// fabric stores it as a record of its own (api.Pipeline, the same JSON);
// package tenant converts.
type Pipeline struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Usecase     string            `json:"usecase"`
	Category    string            `json:"category"`
	Version     string            `json:"version"`
	Sources     map[string]Source `json:"sources,omitempty"`
	Data        Data              `json:"data"`
	Artifacts   []Artifact        `json:"artifacts,omitempty"`
	HTMLData    string            `json:"html_data,omitempty"`
	// Limits are the pipeline's own job limits.
	Limits *Limits `json:"limits,omitempty"`
	// SavedTime is when this version was saved.
	SavedTime string `json:"saved_time,omitempty"`
	// Pipetype is Published or Draft.
	Pipetype string `json:"pipetype,omitempty"`
	// Format is the form the document was written in: FormYAML,
	// FormJSON or FormText.
	Format string `json:"format,omitempty"`
}

// Source is a source a pipeline reads from.
type Source struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Data is a pipeline's body: its steps.
type Data struct {
	Name     string `json:"name"`
	Sequence []Step `json:"sequence"`
}

// Step is one bot of a pipeline: its tag (@ns:bot, *ns:bot or #ns:bot),
// the query that follows it, and a comment.
type Step struct {
	Tag     string `json:"tag"`
	Query   string `json:"query"`
	Comment string `json:"comment"`
}

// Artifact is an artifact a pipeline uses, with its access (e.g. write).
type Artifact struct {
	ArtifactType string `json:"artifact_type"`
	ArtifactName string `json:"artifact_name"`
	Access       string `json:"access"`
}

// Limits are a pipeline's own job limits: positive numbers, zero where
// it asks for none.
type Limits struct {
	MaxRows     int64   `json:"max_rows,omitempty" yaml:"max_rows,omitempty"`
	MaxMemoryMB float64 `json:"max_memory_mb,omitempty" yaml:"max_memory_mb,omitempty"`
	MaxSeconds  float64 `json:"max_seconds,omitempty" yaml:"max_seconds,omitempty"`
}
