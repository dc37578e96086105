package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/nats-io/nats.go"
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
// body) within wait, through the api-server (without one, the client
// asks them itself), calls add with each answer and counts answers, pods
// asked and those missing. An error answer fails the whole.
func askPods[T any](ctx context.Context, c *Client, t api.PodTarget, endpoint string, req any, wait time.Duration, responded, targeted *int, missing *[]string, add func(T)) error {
	if wait <= 0 || wait > LibraryMaxWait {
		return fmt.Errorf("the wait must be more than 0 seconds and at most %s", LibraryMaxWait)
	}
	ask := api.PodAsk{Target: t, Endpoint: endpoint, WaitSeconds: wait.Seconds()}
	if req != nil {
		data, err := json.Marshal(req)
		if err != nil {
			return err
		}
		ask.Request = data
	}
	ans, err := c.podAsk(ctx, ask, wait)
	if err != nil {
		return err
	}
	*targeted = len(ans.PodIDs) + len(ans.Missing)
	*missing = ans.Missing
	for i, a := range ans.Answers {
		var e api.Error
		if json.Unmarshal(a, &e) == nil && e.Error != "" {
			return fmt.Errorf("pod %s: %s", ans.PodIDs[i], e.Error)
		}
		var v T
		if err := json.Unmarshal(a, &v); err != nil {
			return fmt.Errorf("pod %s: bad answer: %v", ans.PodIDs[i], err)
		}
		add(v)
		*responded++
	}
	return nil
}

// podAsk sends a PodAsk to the api-server, which asks the pods; without
// an api-server the client asks them itself.
func (c *Client) podAsk(ctx context.Context, ask api.PodAsk, wait time.Duration) (api.PodAnswers, error) {
	var ans api.PodAnswers
	data, err := json.Marshal(ask)
	if err != nil {
		return ans, err
	}
	rctx, cancel := context.WithTimeout(ctx, wait+Timeout)
	defer cancel()
	msg, err := c.nc.RequestWithContext(rctx, api.SubjectPodAsk, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		lctx, cancel := context.WithTimeout(ctx, Timeout)
		regs, err := registry.List(lctx, c.JetStream())
		cancel()
		if err != nil {
			return ans, timeoutError(err)
		}
		return registry.AskPods(ctx, c.nc, regs, ask)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return ans, fmt.Errorf("the api-server did not answer within %s", wait+Timeout)
	case err != nil:
		return ans, err
	}
	return ans, decode(msg.Data, &ans)
}
