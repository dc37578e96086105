package pod

import (
	"encoding/json"
	"os"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go/micro"
)

// InMaintenance reports whether the pod is in maintenance mode: it takes
// no new jobs (info, pods and healthcheck show it).
func (p *Pod) InMaintenance() bool { return p.maintenance.Load() }

// SetMaintenance puts the pod in maintenance mode or takes it out, and
// tells the pod's service (OnMaintenance) when the mode changes.
func (p *Pod) SetMaintenance(on bool) {
	if p.maintenance.Swap(on) == on {
		return
	}
	if on {
		p.Logf("maintenance: on (takes no new jobs)")
	} else {
		p.Logf("maintenance: off")
	}
	p.hooksMu.Lock()
	fn := p.onMaintenance
	p.hooksMu.Unlock()
	if fn != nil {
		fn(on)
	}
}

// OnMaintenance sets what the pod's service does when the pod goes into
// maintenance mode or out of it (a worker hands its service instances
// back to the controller).
func (p *Pod) OnMaintenance(fn func(on bool)) {
	p.hooksMu.Lock()
	p.onMaintenance = fn
	p.hooksMu.Unlock()
}

// OnUpgrade sets how the pod's controller replaces the pod's process
// with another build (nil: the pod cannot be upgraded in place).
func (p *Pod) OnUpgrade(fn func(api.UpgradeRequest) (api.UpgradeAccepted, error)) {
	p.hooksMu.Lock()
	p.onUpgrade = fn
	p.hooksMu.Unlock()
}

// ActiveJobs is the number of jobs the pod runs now.
func (p *Pod) ActiveJobs() int { return int(p.activeJobs.Load()) }

func (p *Pod) maintenanceState() api.MaintenanceState {
	return api.MaintenanceState{PodID: p.ID, PodType: p.Type, Maintenance: p.InMaintenance(), ActiveJobs: p.ActiveJobs()}
}

func (p *Pod) handleMaintenance(r micro.Request) {
	var req api.MaintenanceRequest
	if len(r.Data()) > 0 {
		if err := json.Unmarshal(r.Data(), &req); err != nil {
			respondJSON(r, api.Error{Error: "bad maintenance request: " + err.Error()})
			return
		}
		p.SetMaintenance(req.On)
	}
	respondJSON(r, p.maintenanceState())
}

func (p *Pod) handleUpgrade(r micro.Request) {
	var req api.UpgradeRequest
	if err := json.Unmarshal(r.Data(), &req); err != nil {
		respondJSON(r, api.Error{Error: "bad upgrade request: " + err.Error()})
		return
	}
	p.hooksMu.Lock()
	fn := p.onUpgrade
	p.hooksMu.Unlock()
	if fn == nil {
		respondJSON(r, api.Error{Error: "pod " + p.ID + " runs in a process that cannot be upgraded in place"})
		return
	}
	acc, err := fn(req)
	if err != nil {
		respondJSON(r, api.Error{Error: err.Error()})
		return
	}
	acc.ProcID = os.Getpid()
	respondJSON(r, acc)
}
