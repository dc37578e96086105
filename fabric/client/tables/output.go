package tables

import (
	"context"
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/client"
	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/fabric/lib/lazy"
)

// Output returns the output of a completed job (partial id) as a
// lazy table, its count from the job's record.
func Output(ctx context.Context, c *client.Client, partial string) (*lazy.Table, api.Job, error) {
	j, err := c.Job(ctx, partial)
	if err != nil {
		return nil, j, err
	}
	switch {
	case api.JobActive(j.Status):
		return nil, j, fmt.Errorf("job %s is still %s: its output is not there yet", j.JobID, j.Status)
	case j.Status != api.JobCompleted:
		return nil, j, fmt.Errorf("job %s %s and has no output: %s", j.JobID, lowerStatus(j.Status), j.Reason)
	case j.Output == "":
		return nil, j, fmt.Errorf("the output of job %s was purged", j.JobID)
	}
	return lazy.New(Of(c).StoredInput(j.Output, frame.Parquet, lazy.Meta{Rows: j.OutputRows})), j, nil
}

func lowerStatus(s string) string {
	switch s {
	case api.JobFailed:
		return "failed"
	case api.JobEvicted:
		return "was evicted"
	}
	return "is " + s
}
