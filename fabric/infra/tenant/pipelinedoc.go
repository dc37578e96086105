package tenant

import (
	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// LoadPipeline reads a pipeline document written as YAML, JSON or the
// text form (pipeline.Load) as the record the fabric stores.
func LoadPipeline(data []byte, fileName string) (api.Pipeline, error) {
	d, err := pipeline.Load(data, fileName)
	return PipelineRecord(d), err
}

// PipelineRecord is the record of a pipeline document: the pipeline
// library's types, which know nothing of the protocol, as api's.
func PipelineRecord(d pipeline.Pipeline) api.Pipeline {
	p := api.Pipeline{Name: d.Name, Description: d.Description, Usecase: d.Usecase, Category: d.Category,
		Version: d.Version, HTMLData: d.HTMLData, SavedTime: d.SavedTime, Pipetype: d.Pipetype, Format: d.Format,
		Data: api.PipelineData{Name: d.Data.Name, Sequence: PipelineSteps(d.Data.Sequence)}}
	if d.Sources != nil {
		p.Sources = make(map[string]api.PipelineSource, len(d.Sources))
		for k, s := range d.Sources {
			p.Sources[k] = api.PipelineSource(s)
		}
	}
	for _, a := range d.Artifacts {
		p.Artifacts = append(p.Artifacts, api.PipelineArtifact(a))
	}
	if d.Limits != nil {
		p.Limits = &api.JobLimits{MaxRows: d.Limits.MaxRows, MaxMemoryMB: d.Limits.MaxMemoryMB, MaxSeconds: d.Limits.MaxSeconds}
	}
	return p
}

// PipelineSteps are the steps of a pipeline document as api's (nil stays
// nil).
func PipelineSteps(steps []pipeline.Step) []api.PipelineStep {
	if steps == nil {
		return nil
	}
	out := make([]api.PipelineStep, len(steps))
	for i, s := range steps {
		out[i] = api.PipelineStep(s)
	}
	return out
}
