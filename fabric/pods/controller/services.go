package controller

import (
	"fmt"
	"sort"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
)

// healthyAfter is how long an instance must have run for its failure
// not to count as a quick end in a row, quickCompletion how long for its
// completion not to (a service that reads a batch per job completes, and
// is followed at once, but one that completes as soon as it starts would
// be restarted as fast as the fabric can); maxBackoff bounds the wait
// between starts of an entry whose instances keep ending quickly.
const (
	healthyAfter    = time.Minute
	quickCompletion = 10 * time.Second
	maxBackoff      = 5 * time.Minute
)

// deployments keeps every enabled deployment's services and scheduled
// pipelines, and stops the jobs of the others.
func (p *pass) deployments() {
	recs, err := p.c.repo.List(p.ctx, artifact.Deployment)
	if err != nil {
		p.c.o.Logf("controller: reading the deployments: %v", err)
		return
	}
	enabled := map[string]*blueprint.Blueprint{}
	for _, r := range recs {
		b, err := blueprint.Parse(r.Doc.JSON())
		if err != nil {
			continue // refused when added; an older record the audit reports
		}
		if b.IsEnabled() {
			enabled[b.ID] = b
		}
	}
	ids := make([]string, 0, len(enabled))
	for id := range enabled {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p.deployment(enabled[id])
	}
	// The jobs of deployments disabled or deleted are stopped, and their
	// state forgotten.
	for _, j := range p.sortedRunning() {
		if j.Owner.Deployment == "" || enabled[j.Owner.Deployment] != nil {
			continue
		}
		reason := fmt.Sprintf("deployment %s (%s) is disabled or deleted", j.Owner.DeploymentName, j.Owner.Deployment)
		if err := p.c.evict(p.ctx, j, reason); err != nil {
			p.c.o.Logf("controller: stopping job %s: %v", j.JobID, err)
			continue
		}
		delete(p.running, j.JobID)
		p.c.activity(p.ctx, api.Activity{Severity: api.SeverityInfo, Deployment: j.Owner.Deployment, JobID: j.JobID,
			Message: fmt.Sprintf("Stopped job %s (%s %s) of deployment %s (id %s): the deployment is disabled or deleted", j.JobID, j.Owner.Kind, j.Owner.Label, j.Owner.DeploymentName, j.Owner.Deployment)})
	}
	kept := map[string]bool{}
	for id := range enabled {
		kept[deploymentKey(id)] = true
	}
	for _, k := range p.c.states.keys(api.DeploymentStatePrefix) {
		if !kept[k] {
			p.dirty[k] = nil
		}
	}
}

// serviceKey names a service entry: its deployment's id and its label.
type serviceKey struct{ deployment, label string }

// services returns the running service jobs by entry, oldest first
// (indexed once per pass).
func (p *pass) services() map[serviceKey][]api.Job {
	if p.byService == nil {
		p.byService = map[serviceKey][]api.Job{}
		for _, j := range p.sortedRunning() {
			if o := j.Owner; o.Kind == api.OwnerService {
				k := serviceKey{o.Deployment, o.Label}
				p.byService[k] = append(p.byService[k], j)
			}
		}
	}
	return p.byService
}

// sortedRunning returns the running jobs, oldest first.
func (p *pass) sortedRunning() []api.Job {
	out := make([]api.Job, 0, len(p.running))
	for _, j := range p.running {
		out = append(out, j)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created < out[j].Created
		}
		return out[i].JobID < out[j].JobID
	})
	return out
}

// deployment keeps one enabled deployment.
func (p *pass) deployment(b *blueprint.Blueprint) {
	key := deploymentKey(b.ID)
	st := &deploymentState{}
	p.c.states.get(key, st)
	if st.Services == nil {
		st.Services = map[string]*service{}
	}
	if st.Scheduled == nil {
		st.Scheduled = map[string]*cronState{}
	}
	labels := map[string]bool{}
	for _, e := range b.Service {
		labels[e.Key()] = true
		s := st.Services[e.Key()]
		if s == nil {
			s = &service{}
			st.Services[e.Key()] = s
		}
		p.service(b, e, s)
	}
	for l := range st.Services {
		if !labels[l] {
			delete(st.Services, l)
		}
	}
	labels = map[string]bool{}
	for _, e := range b.Scheduled {
		labels[e.Key()] = true
		cs := st.Scheduled[e.Key()]
		if cs == nil {
			cs = &cronState{}
			st.Scheduled[e.Key()] = cs
		}
		cr, err := blueprint.ParseStoredCron(e.Cron)
		if err != nil {
			continue
		}
		owner := api.JobOwner{Kind: api.OwnerScheduled, Deployment: b.ID, DeploymentName: b.Name, Label: e.Key()}
		p.cron(cs, cr, e, placementOf(e), owner, true, func(a api.Activity) { a.Deployment = b.ID; p.c.activity(p.ctx, a) })
	}
	for l := range st.Scheduled {
		if !labels[l] {
			delete(st.Scheduled, l)
		}
	}
	p.dirty[key] = st
}

// service keeps a service entry's instances: it notes the jobs that
// ended, starts what is missing (backing off when they keep failing) and
// stops what is too many.
func (p *pass) service(b *blueprint.Blueprint, e blueprint.Entry, s *service) {
	label := e.Key()
	mine := p.services()[serviceKey{b.ID, label}]
	isMine := map[string]bool{}
	for _, j := range mine {
		isMine[j.JobID] = true
	}
	// Instances that ended since the last pass.
	var kept []instance
	known := map[string]bool{}
	for _, in := range s.Jobs {
		known[in.JobID] = true
		if isMine[in.JobID] {
			kept = append(kept, in)
			continue
		}
		status, reason := api.JobFailed, "its record is gone"
		if rec, err := p.c.recs.Get(p.ctx, in.JobID); err == nil {
			status, reason = rec.Status, rec.Reason
		}
		// Only a job that ended by itself soon after it started counts
		// towards the back-off: one that failed on a worker still there,
		// or completed; evictions and lost workers are not the
		// pipeline's fault.
		ran := p.now.Sub(in.Started)
		switch {
		case status == api.JobFailed && p.live(in.PodID) && ran < healthyAfter,
			status == api.JobCompleted && ran < quickCompletion:
			s.Failures++
			if s.Failures > 1 {
				wait := backoff(p.c.o.Period, s.Failures)
				s.NotBefore = p.now.Add(wait)
				p.c.activity(p.ctx, api.Activity{Severity: api.SeverityWarning, Deployment: b.ID, JobID: in.JobID,
					Message: fmt.Sprintf("Backing off service %s of deployment %s (id %s): %d instances in a row ended soon after they started (job %s %s after %s); the next starts in %s",
						label, b.Name, b.ID, s.Failures, in.JobID, ended(status), ran.Round(time.Millisecond), wait)})
			}
		case status == api.JobFailed && p.live(in.PodID), ran >= healthyAfter, status == api.JobCompleted:
			s.Failures = 0
		}
		if status == api.JobCompleted {
			s.Completed = append(s.Completed, in.JobID)
			continue
		}
		s.Lost = append(s.Lost, in.JobID)
		if in.Restarts > 0 {
			if s.LostRestarts == nil {
				s.LostRestarts = map[string]int{}
			}
			s.LostRestarts[in.JobID] = in.Restarts
		}
		p.c.activity(p.ctx, api.Activity{Severity: api.SeverityWarning, Deployment: b.ID, JobID: in.JobID,
			Message: fmt.Sprintf("Job %s of deployment %s (id %s), service %s, %s%s", in.JobID, b.Name, b.ID, label, ended(status), because(reason))})
	}
	// Jobs of the entry the state does not know (started by a leader
	// that stopped before it wrote its state) are taken as they are.
	for _, j := range mine {
		if !known[j.JobID] {
			kept = append(kept, instance{JobID: j.JobID, PodID: j.PodID, Started: p.now, Restarts: j.Owner.Restarts})
		}
	}
	s.Jobs = kept
	want := e.Want()
	// Too many (scaled down, or two leaders for a moment): the newest go.
	for len(mine) > want {
		j := mine[len(mine)-1]
		mine = mine[:len(mine)-1]
		reason := fmt.Sprintf("deployment %s (id %s) runs %d instance%s of service %s", b.Name, b.ID, want, plural(want), label)
		if err := p.c.evict(p.ctx, j, reason); err != nil {
			p.c.o.Logf("controller: stopping job %s: %v", j.JobID, err)
			continue
		}
		delete(p.running, j.JobID)
		s.Jobs = without(s.Jobs, j.JobID)
		p.c.activity(p.ctx, api.Activity{Severity: api.SeverityInfo, Deployment: b.ID, JobID: j.JobID,
			Message: fmt.Sprintf("Stopped job %s: %s", j.JobID, reason)})
	}
	missing := want - len(mine)
	if missing <= 0 || p.now.Before(s.NotBefore) {
		return
	}
	pl, err := p.pipeline(e)
	if err != nil {
		p.problem(b, label, &s.Problem, err.Error())
		return
	}
	// Instances spread over the workers: a worker that runs one already
	// is the last choice, whatever the load its report shows.
	siblings := map[string]int{}
	for _, j := range mine {
		siblings[j.PodID]++
	}
	for i := 0; i < missing; i++ {
		w, err := p.picker.PickApart(placementOf(e), siblings)
		if err != nil {
			if !p.unsure {
				p.problem(b, label, &s.Problem, err.Error())
			}
			return
		}
		siblings[w.ID]++
		owner := api.JobOwner{Kind: api.OwnerService, Deployment: b.ID, DeploymentName: b.Name, Label: label}
		var replaces, follows string
		switch {
		case len(s.Lost) > 0:
			replaces, s.Lost = s.Lost[0], s.Lost[1:]
			s.Restarts++
			// The count is the instance's: its lost job's, plus this one.
			owner.Restarts = s.LostRestarts[replaces] + 1
			delete(s.LostRestarts, replaces)
		case len(s.Completed) > 0:
			follows, s.Completed = s.Completed[0], s.Completed[1:]
		}
		p.starts = append(p.starts, &start{worker: w, pipeline: pl, owner: owner, done: func(jobID string, err error) {
			if err != nil {
				if replaces != "" {
					s.Lost = append([]string{replaces}, s.Lost...)
					s.Restarts--
					if owner.Restarts > 1 {
						if s.LostRestarts == nil {
							s.LostRestarts = map[string]int{}
						}
						s.LostRestarts[replaces] = owner.Restarts - 1
					}
				}
				if follows != "" {
					s.Completed = append([]string{follows}, s.Completed...)
				}
				p.problem(b, label, &s.Problem, err.Error())
				return
			}
			s.Problem = ""
			s.Jobs = append(s.Jobs, instance{JobID: jobID, PodID: w.ID, Started: p.now, Restarts: owner.Restarts})
			msg := fmt.Sprintf("Started job %s of deployment %s (id %s), service %s, on worker %s", jobID, b.Name, b.ID, label, w.ID)
			sev := api.SeverityInfo
			if follows != "" {
				msg = fmt.Sprintf("Started job %s of deployment %s (id %s), service %s, on worker %s, after job %s completed", jobID, b.Name, b.ID, label, w.ID, follows)
			}
			if replaces != "" {
				sev = api.SeverityWarning
				msg = fmt.Sprintf("Re-created job %s of deployment %s (id %s), service %s, as job %s on worker %s: restart count %d", replaces, b.Name, b.ID, label, jobID, w.ID, owner.Restarts)
			}
			p.c.activity(p.ctx, api.Activity{Severity: sev, Deployment: b.ID, JobID: jobID, Message: msg})
		}})
	}
}

// problem reports, once until it changes, why an entry cannot start.
func (p *pass) problem(b *blueprint.Blueprint, label string, last *string, why string) {
	if *last == why {
		return
	}
	*last = why
	p.c.activity(p.ctx, api.Activity{Severity: api.SeverityError, Deployment: b.ID,
		Message: fmt.Sprintf("Cannot start %s of deployment %s (id %s): %s", label, b.Name, b.ID, why)})
}

// backoff is the wait before the next start of an entry whose last
// failures instances ended soon after they started.
func backoff(period time.Duration, failures int) time.Duration {
	d := period
	for i := 2; i < failures && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

func ended(status string) string {
	switch status {
	case api.JobCompleted:
		return "completed"
	case api.JobEvicted:
		return "was evicted"
	case api.JobFailed:
		return "failed"
	}
	return "ended (" + status + ")"
}

func because(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func without(in []instance, id string) []instance {
	out := in[:0]
	for _, x := range in {
		if x.JobID != id {
			out = append(out, x)
		}
	}
	return out
}

// live reports whether a worker answered this pass.
func (p *pass) live(podID string) bool {
	for _, w := range p.picker.Workers() {
		if w.ID == podID {
			return true
		}
	}
	return false
}
