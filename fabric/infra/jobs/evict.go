package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go"
)

// Evict asks the worker of job j to stop it, for reason. A job whose
// worker is gone (no responders) is recorded Evicted here, its reason
// saying so. A worker's refusal is returned as it said it; ctx bounds
// the wait for the worker (its deadline comes back as is).
func (r *Records) Evict(ctx context.Context, nc *nats.Conn, j api.Job, reason string) error {
	data, err := json.Marshal(api.EvictRequest{JobID: j.JobID, Reason: reason})
	if err != nil {
		return err
	}
	m, err := nc.RequestWithContext(ctx, api.PodSubject(j.PodID, api.EndpointEvict), data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		_, err = r.Finish(ctx, j.JobID, api.JobEvicted, reason+" (its worker was gone)", nil)
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return err
	case err != nil:
		return fmt.Errorf("evicting on worker %s: %v", j.PodID, err)
	}
	var e api.Error
	if json.Unmarshal(m.Data, &e) == nil && e.Error != "" {
		return errors.New(e.Error)
	}
	return nil
}
