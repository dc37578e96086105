package engine

import (
	"errors"

	"github.com/fabricops/fabric/fabric/lib/pipeline"
)

// ParseText parses a pipeline written in the "-->" text form (see
// pipeline.ParseText) into engine steps, for the tests; a text without
// steps has none. (The worker turns a run request's steps into engine
// steps itself.)
//
//	## hot hosts
//	@dm:empty
//	  --> @dm:addrow host = 'web-1' & cpu = 93.5
//	  --> *dm:filter cpu > 90 get host, cpu
func ParseText(text string) ([]Step, error) {
	seq, err := pipeline.ParseText(text)
	if errors.Is(err, pipeline.ErrEmpty) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	steps := make([]Step, len(seq))
	for i, s := range seq {
		steps[i] = Step{Tag: s.Tag, Query: s.Query, Comment: s.Comment}
	}
	return steps, nil
}
