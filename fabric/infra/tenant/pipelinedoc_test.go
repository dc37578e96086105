package tenant

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// TestPipelineRecordKeepsEverything: a document converted to a record
// marshals to the same JSON, whatever it holds; the two types have the
// same fields (a field added to one and not the other fails here).
func TestPipelineRecordKeepsEverything(t *testing.T) {
	for _, d := range []pipeline.Pipeline{
		{},
		{Name: "n", Data: pipeline.Data{Name: "n", Sequence: []pipeline.Step{}}},
		{Name: "hot", Description: "d", Usecase: "u", Category: "c", Version: "2026_01_02_3",
			Sources:   map[string]pipeline.Source{"m": {Name: "m", Type: "stream"}},
			Data:      pipeline.Data{Name: "hot", Sequence: []pipeline.Step{{Tag: "@dm:empty", Query: "q", Comment: "c"}}},
			Artifacts: []pipeline.Artifact{{ArtifactType: "dataset", ArtifactName: "x", Access: "write"}},
			HTMLData:  "<p>", Limits: &pipeline.Limits{MaxRows: 5, MaxMemoryMB: 1.5, MaxSeconds: 9},
			SavedTime: "t", Pipetype: pipeline.Draft, Format: pipeline.FormText},
	} {
		want, _ := json.Marshal(d)
		got, _ := json.Marshal(PipelineRecord(d))
		if string(got) != string(want) {
			t.Errorf("record\n%s\nwant\n%s", got, want)
		}
	}
	for _, c := range []struct{ doc, rec any }{
		{pipeline.Pipeline{}, api.Pipeline{}},
		{pipeline.Data{}, api.PipelineData{}},
		{pipeline.Limits{}, api.JobLimits{}},
	} {
		if a, b := reflect.TypeOf(c.doc).NumField(), reflect.TypeOf(c.rec).NumField(); a != b {
			t.Errorf("%T has %d fields, %T %d", c.doc, a, c.rec, b)
		}
	}
}

// TestPipelineConstantsMatchAPI: the library's forms and pipeline types
// are the values the protocol stores.
func TestPipelineConstantsMatchAPI(t *testing.T) {
	for _, c := range [][2]string{
		{pipeline.FormYAML, api.PipelineYAML}, {pipeline.FormJSON, api.PipelineJSON}, {pipeline.FormText, api.PipelineText},
		{pipeline.Published, api.PipetypePublished}, {pipeline.Draft, api.PipetypeDraft},
	} {
		if c[0] != c[1] {
			t.Errorf("library %q, protocol %q", c[0], c[1])
		}
	}
	if !slices.Equal(pipeline.Pipetypes, api.Pipetypes) {
		t.Errorf("library pipetypes %v, protocol %v", pipeline.Pipetypes, api.Pipetypes)
	}
}
