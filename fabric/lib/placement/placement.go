// Package placement chooses the worker a job runs on: among the live
// workers that match a site, a filter on their labels and one on their
// resources, and whose own capacity filter holds, the least busy. The
// leading scheduler places every job with it (the runs the client asks
// for and the deployment controller's); it knows nothing of the
// protocol: its callers convert the pods' info into Workers.
package placement

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/cfxql"
)

// Placement says which workers may take a job: a site (a regular
// expression matching the whole name, or with SiteIsName the name
// itself, in any case; "" or "*": any), a CFXQL filter on the worker's labels and one on its
// resources. Each worker's own capacity_filter must hold too.
type Placement struct {
	Site       string
	SiteIsName bool
	LFilter    string
	RFilter    string
}

// Worker is a worker as placement sees it: where it is, its labels and
// resources (as their JSON fields), how many jobs it runs and its
// capacity filter (a CFXQL condition on its resources, which see
// ActiveJobs as pod_usage_active_jobs).
type Worker struct {
	ID             string
	Site           string
	Hostname       string
	Labels         map[string]any
	Resources      map[string]any
	ActiveJobs     int
	CapacityFilter string
	// Maintenance is whether the worker is in maintenance mode: it takes
	// no new jobs.
	Maintenance bool
}

// ErrNoWorker is the error of a pick when no worker runs at all.
var ErrNoWorker = errors.New("no worker is running: start one (client fabric up --workers 1)")

// ErrNoCapacity is wrapped by the error of a pick that passed over a
// worker only because it was over capacity: waiting may help.
var ErrNoCapacity = errors.New("over capacity")

// Picker picks workers from one view of them. Each pick counts a job on
// the worker it chose, so that picks in a row spread over the workers.
type Picker struct {
	workers []Worker
}

// NewPicker returns a picker over workers (a copy: picks do not change
// the caller's).
func NewPicker(workers []Worker) *Picker {
	return &Picker{workers: append([]Worker(nil), workers...)}
}

// Workers returns the workers the picker chooses from.
func (p *Picker) Workers() []Worker { return p.workers }

// Pick is a one-off pick from workers.
func Pick(workers []Worker, pl Placement) (Worker, error) {
	return NewPicker(workers).Pick(pl)
}

// noMatch is the error of a pick no worker matched: why each was passed
// over; it is ErrNoCapacity when one was over capacity.
type noMatch struct {
	msg      string
	capacity bool
}

func (e *noMatch) Error() string { return e.msg }

func (e *noMatch) Is(target error) bool { return target == ErrNoCapacity && e.capacity }

// Pick chooses a worker for a job placed by pl: the one with the fewest
// active jobs among those that match, ties broken at random. The error
// says why each worker was passed over.
func (p *Picker) Pick(pl Placement) (Worker, error) {
	return p.PickApart(pl, nil)
}

// PickApart is Pick for one of several instances of a service: among
// the workers that match it prefers those running the fewest of its
// siblings (siblings counts them by worker id), so that the instances
// spread over the workers; then, as Pick, the least busy. The counts
// the workers report may lag a job that is stopping; the caller's own
// count of siblings does not.
func (p *Picker) PickApart(pl Placement, siblings map[string]int) (Worker, error) {
	m, err := pl.matcher()
	if err != nil {
		return Worker{}, err
	}
	if len(p.workers) == 0 {
		return Worker{}, ErrNoWorker
	}
	var candidates []int
	why := map[string]int{}
	capacity := false
	for i, w := range p.workers {
		if reason, full := m.refuses(w); reason != "" {
			why[reason]++
			capacity = capacity || full
			continue
		}
		candidates = append(candidates, i)
	}
	if len(candidates) == 0 {
		reasons := make([]string, 0, len(why))
		for r, n := range why {
			reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
		}
		sort.Strings(reasons)
		return Worker{}, &noMatch{msg: fmt.Sprintf("no worker matches: of %d workers, %s", len(p.workers), strings.Join(reasons, ", ")), capacity: capacity}
	}
	rand.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	sort.SliceStable(candidates, func(i, j int) bool {
		a, b := p.workers[candidates[i]], p.workers[candidates[j]]
		if sa, sb := siblings[a.ID], siblings[b.ID]; sa != sb {
			return sa < sb
		}
		return a.ActiveJobs < b.ActiveJobs
	})
	best := &p.workers[candidates[0]]
	best.ActiveJobs++
	return *best, nil
}

// matcher is a placement made ready to test workers.
type matcher struct {
	pl     Placement
	site   func(string) bool
	lf, rf *cfxql.Query
}

func (pl Placement) matcher() (*matcher, error) {
	m := &matcher{pl: pl}
	switch {
	case pl.Site == "" || pl.Site == "*":
	case pl.SiteIsName:
		m.site = func(s string) bool { return strings.EqualFold(s, pl.Site) }
	default:
		re, err := regexp.Compile(pl.Site)
		if err != nil {
			return nil, fmt.Errorf("--site %q is not a valid name or pattern: %v", pl.Site, err)
		}
		// The whole name must match: the leftmost-longest match is the
		// name (wrapping the text in ^(?:...)$ breaks on \Q).
		re.Longest()
		m.site = func(s string) bool {
			loc := re.FindStringIndex(s)
			return loc != nil && loc[0] == 0 && loc[1] == len(s)
		}
	}
	var err error
	if m.lf, err = parseFilter("lfilter", pl.LFilter); err != nil {
		return nil, err
	}
	if m.rf, err = parseFilter("rfilter", pl.RFilter); err != nil {
		return nil, err
	}
	return m, nil
}

// refuses returns why the worker w cannot take the job ("" when it can),
// and whether that is its capacity.
func (m *matcher) refuses(w Worker) (string, bool) {
	labels, resources := copyMap(w.Labels), copyMap(w.Resources)
	labels["site_name"], labels["pod_id"], labels["hostname"] = w.Site, w.ID, w.Hostname
	resources["pod_usage_active_jobs"] = float64(w.ActiveJobs)
	switch {
	case w.Maintenance:
		return "in maintenance", true // waiting may help: it comes back
	case m.site != nil && !m.site(w.Site):
		return "not at site " + m.pl.Site, false
	case m.lf != nil && !matches(m.lf, labels):
		return "labels do not match --lfilter", false
	case m.rf != nil && !matches(m.rf, resources):
		return "resources do not match --rfilter", false
	case !capacityOK(w.CapacityFilter, resources):
		return "over capacity (" + w.CapacityFilter + ")", true
	}
	return "", false
}

func parseFilter(flag, q string) (*cfxql.Query, error) {
	if q == "" {
		return nil, nil
	}
	p, err := cfxql.Parse(q)
	if err != nil {
		return nil, fmt.Errorf("--%s: %v", flag, err)
	}
	return p, nil
}

func matches(q *cfxql.Query, m map[string]any) bool {
	ok, err := q.Match(m)
	return err == nil && ok
}

// capacityOK evaluates a worker's capacity filter on its resources; a
// filter that does not parse does not hold a worker back.
func capacityOK(filter string, resources map[string]any) bool {
	if filter == "" {
		return true
	}
	q, err := cfxql.Parse(filter)
	if err != nil {
		return true
	}
	return matches(q, resources)
}

// copyMap returns a copy of m (an empty map for nil).
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+3)
	for k, v := range m {
		out[k] = v
	}
	return out
}
