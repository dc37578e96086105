package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/artifact"
	"github.com/fabricops/fabric/fabric/infra/store"
	"github.com/fabricops/fabric/fabric/infra/synthetics"
	"github.com/fabricops/fabric/fabric/lib/probes"
)

// How a worker runs the synthetic profiles' probes: every SyntheticsTick
// it runs the checks of its site that are due and that it claimed first
// (one worker of a site runs each run), reading the profiles again every
// SyntheticsReload.
var (
	SyntheticsTick   = time.Second
	SyntheticsReload = 5 * time.Second
)

// The bounds of the probes a worker runs: at once, and in all (the
// tenant's checks beyond MaxTenantChecks, by profile name, are not run,
// and the worker's log says so).
const (
	MaxRunningProbes = 16
	MaxTenantChecks  = 1000
)

// siteCheck is a check a worker runs and the site its results are kept
// under ("" for a profile that names no site: any worker runs it).
type siteCheck struct {
	probes.Check
	site string
}

// prober runs a worker's probes.
type prober struct {
	w      *Worker
	repo   *artifact.Repo
	status *synthetics.Status
	guard  probes.Guard
	checks []siteCheck
	next   map[string]time.Time
	sem    chan struct{}
	// said is what the worker logged of each profile: a line is logged
	// when it changes, not at every reload.
	said map[string]string
}

// say logs a line about a profile unless it was the last one logged of
// it.
func (pr *prober) say(profile, format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if pr.said[profile] != line {
		pr.said[profile] = line
		pr.w.p.Infof(api.LoggerWorker, "synthetics: profile %s: %s", profile, line)
	}
}

// runSynthetics runs the worker's probes until the pod stops.
func (w *Worker) runSynthetics(st *store.Store) {
	pr := &prober{w: w, repo: &artifact.Repo{Store: st}, next: map[string]time.Time{}, said: map[string]string{}, sem: make(chan struct{}, MaxRunningProbes)}
	tick := time.NewTicker(SyntheticsTick)
	defer tick.Stop()
	var loaded time.Time
	for {
		select {
		case <-w.p.Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*store.Timeout)
		if pr.status == nil {
			s, err := synthetics.OpenStatus(ctx, st)
			if err != nil {
				cancel()
				continue
			}
			pr.status = s
		}
		if time.Since(loaded) >= SyntheticsReload {
			if err := pr.load(ctx); err != nil {
				w.p.Infof(api.LoggerWorker, "synthetics: reading the profiles: %v", err)
			}
			loaded = time.Now()
		}
		if !w.p.InMaintenance() {
			pr.runDue(ctx)
		}
		cancel()
	}
}

// load reads the profiles, their stacks and site profiles, keeps the
// checks of the worker's site, and prunes the results of checks that no
// longer are.
func (pr *prober) load(ctx context.Context) error {
	recs, err := pr.repo.List(ctx, artifact.Synthetics)
	if err != nil {
		return err
	}
	if addr := pr.w.p.Conn().ConnectedAddr(); addr != "" {
		pr.guard = probes.Guard{Refused: []string{addr}}
	}
	var checks []siteCheck
	keep := map[string]bool{}
	total := 0
	for _, rec := range recs {
		p, err := probes.ParseProfile(rec.Doc.JSON())
		if err != nil {
			continue
		}
		stackDoc, err := pr.repo.GetJSON(ctx, artifact.Stack, p.Stack)
		if err != nil {
			pr.say(p.Name, "%v", err)
			continue
		}
		stack, _ := probes.ParseStack(stackDoc)
		cs, err := p.Checks(stack)
		if err != nil {
			pr.say(p.Name, "%v", err)
			continue
		}
		for _, c := range cs {
			keep[c.Key()] = true
		}
		if total+len(cs) > MaxTenantChecks {
			pr.say(p.Name, "not run: the tenant's profiles make more than %d checks", MaxTenantChecks)
			continue
		}
		total += len(cs)
		if !p.On() {
			continue
		}
		sites := p.Sites
		if p.SiteProfile != "" {
			doc, err := pr.repo.Get(ctx, artifact.SiteProfile, p.SiteProfile)
			if err != nil {
				pr.say(p.Name, "%v", err)
				continue
			}
			var more []string
			_ = json.Unmarshal(doc.Doc.Raw("sites"), &more)
			sites = append(slices.Clone(sites), more...)
		}
		delete(pr.said, p.Name) // runs: a later refusal is logged again
		site := ""
		if len(sites) > 0 {
			if !siteMatches(sites, pr.w.p.Site) {
				continue
			}
			site = pr.w.p.Site
		}
		for _, c := range cs {
			checks = append(checks, siteCheck{Check: c, site: site})
		}
	}
	pr.checks = checks
	return pr.status.Prune(ctx, keep)
}

// siteMatches reports whether site is one of sites: a name, or a regex
// that matches the whole name.
func siteMatches(sites []string, site string) bool {
	for _, s := range sites {
		if s == site {
			return true
		}
		if re, err := regexp.Compile(`^(?:` + s + `)$`); err == nil && re.MatchString(site) {
			return true
		}
	}
	return false
}

// runDue claims and starts the checks that are due, as many as may run
// at once; the others wait for a later tick.
func (pr *prober) runDue(ctx context.Context) {
	now := time.Now()
	for _, c := range pr.checks {
		k := synthetics.KeyAt(c.Check, c.site)
		if now.Before(pr.next[k]) {
			continue
		}
		select {
		case pr.sem <- struct{}{}:
		default:
			return // as many probes run as may: the rest wait
		}
		ok, next, err := pr.status.Claim(ctx, c.Check, c.site, pr.w.p.ID, now)
		pr.next[k] = next
		if err != nil || !ok {
			<-pr.sem
			continue
		}
		go pr.run(c)
	}
}

// run runs a check and writes its result to the stream and the status
// bucket.
func (pr *prober) run(c siteCheck) {
	defer func() { <-pr.sem }()
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout+store.Timeout)
	defer cancel()
	r := probes.Run(ctx, c.Check, pr.guard, nil)
	r.Timestamp, r.Site, r.PodID = api.Timestamp(time.Now()), pr.w.p.Site, pr.w.p.ID
	pr.w.publishRecord(api.StreamSynthetics, r)
	if err := pr.status.Save(ctx, c.Check, c.site, r); err != nil {
		pr.w.p.Infof(api.LoggerWorker, "synthetics: keeping the result of %s: %v", c.Key(), err)
	}
}
