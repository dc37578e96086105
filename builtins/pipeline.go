package builtins

import (
	"fmt"

	"github.com/fabricops/fabric/fabric/pipeline"
	"github.com/fabricops/fabric/runtime/doc"
	"github.com/fabricops/fabric/runtime/value"
	"go.starlark.net/starlark"
)

func pipelineModule() starlark.Value {
	return doc.Module("pipeline", "Pipelines (SPEC 2.10): their content checksums.", starlark.StringDict{
		"CANONICAL_FORM": starlark.String(pipeline.CanonicalForm),
		"checksum": doc.Builtin("pipeline.checksum", `pipeline.checksum(text)

Returns the content checksums of a pipeline given as JSON text:
{"name", "checksum", "steps": [{"step", "tag", "checksum"}]}, with one
checksum of the whole document and one per data.sequence step.

`+pipeline.CanonicalForm, pipelineChecksum),
	})
}

func pipelineChecksum(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &text); err != nil {
		return nil, err
	}
	sums, err := pipeline.Checksum([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return value.ToStarlark(sums)
}
