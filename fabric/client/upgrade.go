package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go"
)

// UpgradeProcess is a process of the fabric as an upgrade sees it: a
// fabricd on a host, with its pods. An upgrade replaces one process at a
// time.
type UpgradeProcess struct {
	Hostname string        `json:"hostname"`
	ProcID   int           `json:"proc_id"`
	Pods     []api.PodInfo `json:"pods"`
}

// upgradeRank orders the processes of an upgrade as SPEC 9.1 orders the
// services: the platform's (api-server, graph store, scheduler) first,
// then the workers, then the agents.
func upgradeRank(p UpgradeProcess) int {
	rank := 0
	for _, pod := range p.Pods {
		r := 0
		switch pod.PodType {
		case api.Worker:
			r = 1
		case api.EventGateway:
			r = 2
		}
		rank = max(rank, r)
	}
	return rank
}

// UpgradeProcesses returns the fabric's processes, each with its pods,
// in the order an upgrade takes them.
func (c *Client) UpgradeProcesses(ctx context.Context) ([]UpgradeProcess, error) {
	pods, err := c.Pods(ctx)
	if err != nil {
		return nil, err
	}
	byProc := map[string]*UpgradeProcess{}
	var out []*UpgradeProcess
	for _, p := range pods {
		key := fmt.Sprintf("%s/%d", p.Hostname, p.ProcID)
		up, ok := byProc[key]
		if !ok {
			up = &UpgradeProcess{Hostname: p.Hostname, ProcID: p.ProcID}
			byProc[key] = up
			out = append(out, up)
		}
		up.Pods = append(up.Pods, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := upgradeRank(*a), upgradeRank(*b); ra != rb {
			return ra < rb
		}
		if a.Hostname != b.Hostname {
			return a.Hostname < b.Hostname
		}
		return a.ProcID < b.ProcID
	})
	res := make([]UpgradeProcess, len(out))
	for i, p := range out {
		res[i] = *p
	}
	return res, nil
}

// Maintenance puts a pod in maintenance mode or takes it out, and returns
// its state.
func (c *Client) Maintenance(ctx context.Context, podID string, on bool) (api.MaintenanceState, error) {
	var st api.MaintenanceState
	err := c.podCall(ctx, podID, api.EndpointMaintenance, api.MaintenanceRequest{On: on}, &st)
	return st, err
}

// waitBack waits, at most timeout, until the pods of an accepted upgrade
// answer again on its version, out of maintenance and healthy.
func (c *Client) waitBack(ctx context.Context, acc api.UpgradeAccepted, timeout time.Duration) ([]api.PodInfo, error) {
	want := map[string]bool{}
	for _, id := range acc.PodIDs {
		want[id] = true
	}
	deadline := time.Now().Add(timeout)
	var why string
	for {
		pods, err := c.Pods(ctx)
		if err == nil {
			var back []api.PodInfo
			why = ""
			for _, p := range pods {
				if !want[p.PodID] {
					continue
				}
				switch {
				case p.BuildTag != acc.Version:
					why = fmt.Sprintf("pod %s still runs %s", p.PodID, p.BuildTag)
				case p.Maintenance:
					why = fmt.Sprintf("pod %s is in maintenance", p.PodID)
				default:
					back = append(back, p)
				}
			}
			if len(back) == len(want) {
				if err := c.healthy(ctx, want); err != nil {
					why = err.Error()
				} else {
					return back, nil
				}
			} else if why == "" {
				why = fmt.Sprintf("%d of %d pod(s) answer", len(back), len(want))
			}
		} else {
			why = err.Error()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("timed out after %s waiting for the pods of process %d (%s) to come back on %s: %s", timeout, acc.ProcID, strings.Join(acc.PodIDs, ", "), acc.Version, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// UpgradeAll asks the processes of podIDs (a pod of each) to do req, all
// at once: each runs the build req names of its host's upgrades
// directory in its place (its jobs drained first). It then waits, at
// most timeout, until every pod of those processes answers again with
// the same id on the new build, out of maintenance and healthy, and
// returns them; or the first failure.
func (c *Client) UpgradeAll(ctx context.Context, podIDs []string, req api.UpgradeRequest, timeout time.Duration) ([]api.PodInfo, error) {
	accs := make([]api.UpgradeAccepted, len(podIDs))
	for i, id := range podIDs {
		if err := c.podCall(ctx, id, api.EndpointUpgrade, req, &accs[i]); err != nil {
			return nil, fmt.Errorf("pod %s: %w", id, err)
		}
	}
	deadline := time.Now().Add(timeout)
	var all []api.PodInfo
	for _, acc := range accs {
		back, err := c.waitBack(ctx, acc, time.Until(deadline))
		if err != nil {
			return all, err
		}
		all = append(all, back...)
	}
	return all, nil
}

// healthy checks the health rows of the pods of ids: every one ok.
func (c *Client) healthy(ctx context.Context, ids map[string]bool) error {
	rows, err := c.Health(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if !ids[r.ID] {
			continue
		}
		seen[r.ID] = true
		if r.Status != api.StatusOK {
			return fmt.Errorf("pod %s: %s is %s: %s", r.ID, r.Parameter, r.Status, r.Message)
		}
	}
	if len(seen) < len(ids) {
		return fmt.Errorf("%d of %d pod(s) answered the health check", len(seen), len(ids))
	}
	return nil
}

// SchedulerLeader returns the pod id of the leading scheduler ("" with
// an error when none leads).
func (c *Client) SchedulerLeader(ctx context.Context) (string, error) {
	pods, err := c.Pods(ctx)
	if err != nil {
		return "", err
	}
	for _, p := range pods {
		if p.PodType == api.Scheduler && p.PodLeader {
			return p.PodID, nil
		}
	}
	return "", errors.New("no scheduler leads")
}

// podCall sends req to a pod's endpoint and decodes its answer into out.
func (c *Client) podCall(ctx context.Context, podID, endpoint string, req, out any) error {
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, err := c.nc.RequestWithContext(rctx, api.PodSubject(podID, endpoint), data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("no pod %s answers", podID)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("timed out after 5s waiting for pod %s", podID)
	case err != nil:
		return err
	}
	return decode(msg.Data, out)
}
