package controller

import (
	"fmt"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/blueprint"
	"github.com/fabricops/fabric/fabric/lib/placement"
	"github.com/fabricops/fabric/fabric/pods/scheduler"
	"github.com/robfig/cron/v3"
)

// cron runs an entry once when its cron came due since the last pass
// (once, however many times it came due meanwhile: a controller that was
// down does not catch up). A cron seen for the first time starts from
// now; one that does not run (paused) moves on with the clock, so that
// it does not run at once when it runs again.
func (p *pass) cron(cs *cronState, cr cron.Schedule, e blueprint.Entry, pl placement.Placement, owner api.JobOwner, runs bool, report func(api.Activity)) {
	last, off := cs.Last, cs.Off
	cs.Last, cs.Off = p.now, !runs
	if last.IsZero() || !runs || off {
		return
	}
	due := cr.Next(last)
	if due.IsZero() || due.After(p.now) {
		return
	}
	what := owner.Label
	if owner.Kind == api.OwnerSchedule {
		what = "schedule " + owner.Schedule
	} else {
		what = fmt.Sprintf("scheduled pipeline %s of deployment %s (id %s)", owner.Label, owner.DeploymentName, owner.Deployment)
	}
	fail := func(err error) {
		cs.add(api.CronRun{Time: due, Error: err.Error()})
		if cs.Problem != err.Error() {
			cs.Problem = err.Error()
			report(api.Activity{Severity: api.SeverityError, Message: fmt.Sprintf("Cannot run %s due at %s: %v", what, api.Timestamp(due), err)})
		}
	}
	pipe, err := p.pipeline(e)
	if err != nil {
		fail(err)
		return
	}
	w, err := p.picker.Pick(pl)
	if err != nil && p.unsure {
		cs.Last = last // a worker may answer the next pass: due then
		return
	}
	if err != nil {
		fail(err)
		return
	}
	p.starts = append(p.starts, &start{worker: w, pipeline: pipe, owner: owner, done: func(jobID string, err error) {
		if err != nil {
			fail(err)
			return
		}
		cs.Problem = ""
		cs.add(api.CronRun{Time: due, JobID: jobID})
		report(api.Activity{Severity: api.SeverityInfo, JobID: jobID,
			Message: fmt.Sprintf("Started job %s of %s (due at %s) on worker %s", jobID, what, api.Timestamp(due), w.ID)})
	}})
}

// schedules runs the standalone schedules that came due.
func (p *pass) schedules() {
	recs, err := p.c.repo.List(p.ctx, artifact.Schedule)
	if err != nil {
		p.c.o.Logf("controller: reading the schedules: %v", err)
		return
	}
	seen := map[string]bool{}
	for _, r := range recs {
		s, err := blueprint.ParseSchedule(r.Doc.JSON())
		if err != nil {
			continue
		}
		key := scheduleKey(s.Name)
		seen[key] = true
		cr, err := s.CronSchedule()
		if err != nil {
			continue
		}
		cs := &cronState{}
		p.c.states.get(key, cs)
		pl := scheduler.Placement(api.Placement{Site: s.Site, SiteIsName: s.SiteType == "name", LFilter: s.LFilter, RFilter: s.RFilter})
		owner := api.JobOwner{Kind: api.OwnerSchedule, Schedule: s.Name, Label: s.Name}
		p.cron(cs, cr, s.Entry(), pl, owner, s.Status == blueprint.ScheduleEnabled, func(a api.Activity) { a.Schedule = s.Name; p.c.activity(p.ctx, a) })
		p.dirty[key] = cs
	}
	for _, k := range p.c.states.keys(api.ScheduleStatePrefix) {
		if !seen[k] {
			p.dirty[k] = nil
		}
	}
}
