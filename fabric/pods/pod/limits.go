package pod

import (
	"github.com/fabricops/fabric/fabric/api"
	"github.com/nats-io/nats.go/micro"
)

// SetLimits says which limits the pod enforces (the limits command lists
// them); each row's PodType is the pod's type.
func (p *Pod) SetLimits(rows []api.LimitRow) {
	p.limitsMu.Lock()
	defer p.limitsMu.Unlock()
	p.limits = nil
	for _, r := range rows {
		r.PodType = p.Type
		p.limits = append(p.limits, r)
	}
}

// Limits returns the limits the pod enforces.
func (p *Pod) Limits() []api.LimitRow {
	p.limitsMu.Lock()
	defer p.limitsMu.Unlock()
	return append([]api.LimitRow{}, p.limits...)
}

func (p *Pod) handleLimits(r micro.Request) { respondJSON(r, p.Limits()) }

// SetRuntimes says which bot runtimes the pod runs, by name, version as
// the value (api.RuntimeStarlark: the dialect's); its info carries them.
func (p *Pod) SetRuntimes(runtimes map[string]string) {
	p.limitsMu.Lock()
	defer p.limitsMu.Unlock()
	p.runtimes = make(map[string]string, len(runtimes))
	for k, v := range runtimes {
		p.runtimes[k] = v
	}
}

// Runtimes returns the bot runtimes the pod runs (nil: none said).
func (p *Pod) Runtimes() map[string]string {
	p.limitsMu.Lock()
	defer p.limitsMu.Unlock()
	if p.runtimes == nil {
		return nil
	}
	out := make(map[string]string, len(p.runtimes))
	for k, v := range p.runtimes {
		out[k] = v
	}
	return out
}
