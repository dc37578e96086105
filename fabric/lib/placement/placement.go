// Package placement chooses the worker a job runs on: among the live
// workers that match a site, a filter on their labels and one on their
// resources, and whose own capacity filter holds, the least busy. The
// client's run and the deployment controller place jobs the same way.
package placement

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"

	"github.com/fabricops/fabric/fabric/api"
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

// ErrNoWorker is the error of a pick when no worker runs at all.
var ErrNoWorker = errors.New("no worker is running: start one (client fabric up --workers 1)")

// Picker picks workers from one view of the pods. Each pick counts a job
// on the worker it chose, so that picks in a row spread over the workers.
type Picker struct {
	workers []api.PodInfo
}

// NewPicker returns a picker over the worker pods of pods.
func NewPicker(pods []api.PodInfo) *Picker {
	p := &Picker{}
	for _, w := range pods {
		if w.PodType == api.Worker {
			p.workers = append(p.workers, w)
		}
	}
	return p
}

// Workers returns the workers the picker chooses from.
func (p *Picker) Workers() []api.PodInfo { return p.workers }

// Pick is a one-off pick from pods.
func Pick(pods []api.PodInfo, pl Placement) (api.PodInfo, error) {
	return NewPicker(pods).Pick(pl)
}

// Pick chooses a worker for a job placed by pl: the one with the fewest
// active jobs among those that match, ties broken at random. The error
// says why each worker was passed over.
func (p *Picker) Pick(pl Placement) (api.PodInfo, error) {
	m, err := pl.matcher()
	if err != nil {
		return api.PodInfo{}, err
	}
	if len(p.workers) == 0 {
		return api.PodInfo{}, ErrNoWorker
	}
	var candidates []int
	why := map[string]int{}
	for i, w := range p.workers {
		if reason := m.refuses(w); reason != "" {
			why[reason]++
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
		return api.PodInfo{}, fmt.Errorf("no worker matches: of %d workers, %s", len(p.workers), strings.Join(reasons, ", "))
	}
	rand.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	sort.SliceStable(candidates, func(i, j int) bool {
		return p.workers[candidates[i]].Resources.PodUsageActiveJobs < p.workers[candidates[j]].Resources.PodUsageActiveJobs
	})
	best := &p.workers[candidates[0]]
	best.Resources.PodUsageActiveJobs++
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

// refuses returns why the worker w cannot take the job ("" when it can).
func (m *matcher) refuses(w api.PodInfo) string {
	labels, resources := asMap(w.Labels), asMap(w.Resources)
	labels["site_name"], labels["pod_id"], labels["hostname"] = w.SiteName, w.PodID, w.Hostname
	switch {
	case m.site != nil && !m.site(w.SiteName):
		return "not at site " + m.pl.Site
	case m.lf != nil && !matches(m.lf, labels):
		return "labels do not match --lfilter"
	case m.rf != nil && !matches(m.rf, resources):
		return "resources do not match --rfilter"
	case !capacityOK(w.CapacityFilter, resources):
		return "over capacity (" + w.CapacityFilter + ")"
	}
	return ""
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

// asMap turns a struct into the map of its JSON fields.
func asMap(v any) map[string]any {
	data, _ := json.Marshal(v)
	m := map[string]any{}
	_ = json.Unmarshal(data, &m)
	return m
}
