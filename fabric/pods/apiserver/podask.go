package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/registry"
	"github.com/fabricops/fabric/fabric/pods/pod"
	"github.com/nats-io/nats.go"
)

// maxPodAsks bounds the pod asks (pod-logging, set-pod-log-level,
// pod-logging-handler-set, worker-obj-info) the api-server runs at once:
// each waits for its pods up to its --wait.
const maxPodAsks = 32

var podAsks = make(chan struct{}, maxPodAsks)

// podAsk answers a PodAsk (api.SubjectPodAsk) in a goroutine of its own,
// so that a long wait holds back no other request: the pods it selects
// among the live ones, asked at once, their answers within its wait.
func (f *fanouts) podAsk(m *nats.Msg) {
	var req api.PodAsk
	if err := json.Unmarshal(m.Data, &req); err != nil {
		pod.Reply(m, api.Error{Error: "bad pod request: " + err.Error()})
		return
	}
	select {
	case podAsks <- struct{}{}:
	default:
		pod.Reply(m, api.Error{Error: fmt.Sprintf("the api-server asks pods for %d requests already: try again", maxPodAsks)})
		return
	}
	go func() {
		defer func() { <-podAsks }()
		wait := time.Duration(req.WaitSeconds * float64(time.Second))
		ctx, cancel := context.WithTimeout(context.Background(), wait+time.Second)
		defer cancel()
		ans, err := registry.AskPods(ctx, f.nc, f.regs(), req)
		if err != nil {
			pod.Reply(m, api.Error{Error: err.Error()})
			return
		}
		pod.Reply(m, ans)
	}()
}
