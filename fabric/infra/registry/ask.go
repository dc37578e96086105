package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go"
)

// Pick returns the pod ids a request asks: with ids, those ids (each
// once) less the live pods keep refuses (a pod that is not live is asked
// too, and counts as one that did not answer); otherwise every live pod
// keep accepts, sorted.
func Pick(regs []api.Registration, ids []string, keep func(api.Registration) bool) []string {
	var out []string
	seen := map[string]bool{}
	if len(ids) > 0 {
		live := map[string]api.Registration{}
		for _, r := range regs {
			live[r.PodID] = r
		}
		for _, id := range ids {
			r, ok := live[id]
			if seen[id] || (ok && !keep(r)) {
				continue
			}
			seen[id] = true
			out = append(out, id)
		}
		return out
	}
	for _, r := range regs {
		if keep(r) && !seen[r.PodID] {
			seen[r.PodID] = true
			out = append(out, r.PodID)
		}
	}
	sort.Strings(out)
	return out
}

// Select returns the pod ids a request to t asks (Pick): t.PodIDs less
// the live pods of another type than t.PodType when it is given, or every
// live pod of t.PodType.
func Select(regs []api.Registration, t api.PodTarget) ([]string, error) {
	if len(t.PodIDs) == 0 && t.PodType == "" {
		return nil, errors.New("no pod named: give pod ids or a pod type")
	}
	ids := Pick(regs, t.PodIDs, func(r api.Registration) bool { return t.PodType == "" || r.PodType == t.PodType })
	switch {
	case len(ids) > 0:
		return ids, nil
	case len(t.PodIDs) > 0:
		return nil, fmt.Errorf("no %s pod among the pod ids %s", t.PodType, strings.Join(t.PodIDs, " "))
	}
	return nil, fmt.Errorf("no live %s pod", t.PodType)
}

// AskEach sends data to the endpoint of each pod of ids at once and
// returns their answers, in the order of ids: nil for a pod that is gone
// (no responders, at once) or did not answer within wait.
func AskEach(ctx context.Context, nc *nats.Conn, ids []string, endpoint string, data []byte, wait time.Duration) [][]byte {
	answers := make([][]byte, len(ids))
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if msg, err := nc.RequestWithContext(wctx, api.PodSubject(id, endpoint), data); err == nil {
				answers[i] = msg.Data
			}
		}()
	}
	wg.Wait()
	return answers
}

// AskPods does a PodAsk over the live pods regs: the pods it selects
// asked at once, their answers gathered within its wait.
func AskPods(ctx context.Context, nc *nats.Conn, regs []api.Registration, req api.PodAsk) (api.PodAnswers, error) {
	var ans api.PodAnswers
	known := false
	for _, e := range api.PodAskEndpoints {
		known = known || e == req.Endpoint
	}
	if !known {
		return ans, fmt.Errorf("no pod endpoint %q to ask: one of %s", req.Endpoint, strings.Join(api.PodAskEndpoints, ", "))
	}
	wait := time.Duration(req.WaitSeconds * float64(time.Second))
	if wait <= 0 || wait > time.Hour {
		return ans, errors.New("the wait must be more than 0 seconds and at most 1h0m0s")
	}
	ids, err := Select(regs, req.Target)
	if err != nil {
		return ans, err
	}
	for i, a := range AskEach(ctx, nc, ids, req.Endpoint, req.Request, wait) {
		if a == nil {
			ans.Missing = append(ans.Missing, ids[i])
			continue
		}
		ans.PodIDs = append(ans.PodIDs, ids[i])
		ans.Answers = append(ans.Answers, json.RawMessage(a))
	}
	return ans, ctx.Err()
}
