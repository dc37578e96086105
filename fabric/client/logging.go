package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/registry"
)

// PodAskWait is how long pod-logging, set-pod-log-level,
// pod-logging-handler-set and worker-obj-info wait for the pods' answers
// unless told.
const PodAskWait = 10 * time.Second

// PodLogging sends a logging request (get, or a change that takes effect
// at once) to the pods t selects and gathers their answers within wait:
// a pod that is gone, or that does not answer in time, is reported
// missing. A pod that refuses the request fails it.
func (c *Client) PodLogging(ctx context.Context, t api.PodTarget, req api.LoggingRequest, wait time.Duration) (api.LoggingReport, error) {
	rep := api.LoggingReport{Pods: []api.PodLogging{}}
	err := askPods(ctx, c, t, api.EndpointLogging, req, wait, &rep.Responded, &rep.Targeted, &rep.Missing, func(p api.PodLogging) {
		rep.Pods = append(rep.Pods, p)
	})
	sort.Slice(rep.Pods, func(i, j int) bool { return rep.Pods[i].PodID < rep.Pods[j].PodID })
	return rep, err
}

// WorkerObjInfo asks the workers (all, or those of ids) for their object
// store: connection, buckets and their usage, the tenant's storage limit.
func (c *Client) WorkerObjInfo(ctx context.Context, ids []string, wait time.Duration) (api.ObjInfoReport, error) {
	rep := api.ObjInfoReport{Pods: []api.ObjInfo{}}
	err := askPods(ctx, c, api.PodTarget{PodType: api.Worker, PodIDs: ids}, api.EndpointObjInfo, nil, wait, &rep.Responded, &rep.Targeted, &rep.Missing, func(o api.ObjInfo) {
		rep.Pods = append(rep.Pods, o)
	})
	sort.Slice(rep.Pods, func(i, j int) bool { return rep.Pods[i].PodID < rep.Pods[j].PodID })
	return rep, err
}

// askPods asks the pods t selects on endpoint (req as JSON; nil: no
// body) within wait, calls add with each answer and counts answers,
// pods asked and those missing. An error answer fails the whole.
func askPods[T any](ctx context.Context, c *Client, t api.PodTarget, endpoint string, req any, wait time.Duration, responded, targeted *int, missing *[]string, add func(T)) error {
	if wait <= 0 || wait > LibraryMaxWait {
		return fmt.Errorf("the wait must be more than 0 seconds and at most %s", LibraryMaxWait)
	}
	lctx, cancel := context.WithTimeout(ctx, Timeout)
	regs, err := registry.List(lctx, c.JetStream())
	cancel()
	if err != nil {
		return timeoutError(err)
	}
	ids, err := registry.Select(regs, t)
	if err != nil {
		return err
	}
	var data []byte
	if req != nil {
		if data, err = json.Marshal(req); err != nil {
			return err
		}
	}
	answers := registry.AskEach(ctx, c.nc, ids, endpoint, data, wait)
	if err := ctx.Err(); err != nil {
		return err
	}
	*targeted = len(ids)
	for i, a := range answers {
		if a == nil {
			*missing = append(*missing, ids[i])
			continue
		}
		var e api.Error
		if json.Unmarshal(a, &e) == nil && e.Error != "" {
			return fmt.Errorf("pod %s: %s", ids[i], e.Error)
		}
		var v T
		if err := json.Unmarshal(a, &v); err != nil {
			return fmt.Errorf("pod %s: bad answer: %v", ids[i], err)
		}
		add(v)
		*responded++
	}
	return nil
}
