package graphdb

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// What query tracking keeps is bounded: the slow queries remembered, the
// text of each query and the bind parameters kept with it. (The running
// queries are bounded by the tenant's query gate.)
const (
	maxSlowQueriesCap       = 256       // the most maxSlowQueries may ask, per database
	maxSlowTotal            = 1024      // the most slow queries kept, all databases together
	maxQueryStringLengthCap = 16 << 10  // the most maxQueryStringLength may ask
	maxTrackedBindVars      = 16 << 10  // bytes (as JSON) of bind parameters kept
	errQueryNotFound        = 1591      // ERROR_QUERY_NOT_FOUND
	errBadParameter         = 10        // ERROR_BAD_PARAMETER
	errNotImplemented       = 9         // ERROR_NOT_IMPLEMENTED
	maxSlowThreshold        = 86400 * 7 // seconds: a week
)

// killedCause is why a query killed by DELETE /_api/query/{id} stops: a
// cancellation (errors.Is context.Canceled), so that the query answers
// ERROR_QUERY_KILLED.
var killedCause error = killError{}

type killError struct{}

func (killError) Error() string        { return "killed by request" }
func (killError) Is(target error) bool { return target == context.Canceled }

// queryProps are the query tracking properties (/_api/query/properties),
// the server's as ArangoDB's are: one set for all databases.
type queryProps struct {
	Enabled                     bool    `json:"enabled"`
	TrackSlowQueries            bool    `json:"trackSlowQueries"`
	TrackBindVars               bool    `json:"trackBindVars"`
	MaxSlowQueries              int     `json:"maxSlowQueries"`
	SlowQueryThreshold          float64 `json:"slowQueryThreshold"`
	SlowStreamingQueryThreshold float64 `json:"slowStreamingQueryThreshold"`
	MaxQueryStringLength        int     `json:"maxQueryStringLength"`
}

// defaultQueryProps are ArangoDB's defaults.
var defaultQueryProps = queryProps{Enabled: true, TrackSlowQueries: true, TrackBindVars: true, MaxSlowQueries: 64,
	SlowQueryThreshold: 10, SlowStreamingQueryThreshold: 10, MaxQueryStringLength: 4096}

// trackedQuery is a running query, or a slow one that ended.
type trackedQuery struct {
	id, db, user, query string
	bindVars            map[string]any
	started             time.Time
	stream, modifies    bool
	cancel              context.CancelCauseFunc
	b                   *budget.Budget // its account, once it runs
	listed              bool           // in the running list (tracking was on)

	// Set under queryTracker.mu.
	state    string
	runTime  float64
	peak     int64
	exitCode int
}

// queryTracker is the server's running and slow queries. The properties
// are the server's; each database keeps its own slow queries
// (maxSlowQueries of them), and the server at most maxSlowTotal.
type queryTracker struct {
	mu      sync.Mutex
	set     bool // props were set (else the defaults)
	props   queryProps
	next    uint64
	running map[string]*trackedQuery
	slow    []*trackedQuery // the oldest first
	cache   cacheProps
}

// properties returns the tracking properties in effect.
func (t *queryTracker) properties() queryProps {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.propsLocked()
}

func (t *queryTracker) propsLocked() queryProps {
	if !t.set {
		return defaultQueryProps
	}
	return t.props
}

// start registers a query about to run (listed when tracking is on).
func (t *queryTracker) start(db, user, query string, binds map[string]any, stream, modifies bool, cancel context.CancelCauseFunc) *trackedQuery {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.propsLocked()
	t.next++
	q := &trackedQuery{id: strconv.FormatUint(t.next, 10), db: db, user: user, query: truncate(query, p.MaxQueryStringLength),
		started: time.Now(), stream: stream, modifies: modifies, cancel: cancel, state: "initializing", listed: p.Enabled}
	if p.TrackBindVars {
		q.bindVars = boundedBinds(binds, maxTrackedBindVars)
	}
	if q.listed {
		if t.running == nil {
			t.running = map[string]*trackedQuery{}
		}
		t.running[q.id] = q
	}
	return q
}

// executing notes that a query has its place and runs within b.
func (t *queryTracker) executing(q *trackedQuery, b *budget.Budget) {
	t.mu.Lock()
	q.state, q.b = "executing", b
	t.mu.Unlock()
}

// finish takes a query off the running list and, when it ran longer
// than the threshold, keeps it among the slow queries. exitCode is the
// query's error number (0: it succeeded).
func (t *queryTracker) finish(q *trackedQuery, exitCode int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.running, q.id)
	q.runTime = time.Since(q.started).Seconds()
	q.peak = q.b.Peak()
	q.exitCode, q.b, q.cancel = exitCode, nil, nil
	q.state = "finished"
	if exitCode == 1500 {
		q.state = "killed"
	}
	p := t.propsLocked()
	threshold := p.SlowQueryThreshold
	if q.stream {
		threshold = p.SlowStreamingQueryThreshold
	}
	if !q.listed || !p.Enabled || !p.TrackSlowQueries || q.runTime < threshold || p.MaxSlowQueries <= 0 {
		return
	}
	t.slow = append(t.slow, q)
	t.trimSlow(q.db, p.MaxSlowQueries)
}

// trimSlow keeps the newest max slow queries of database db, and the
// newest maxSlowTotal of all (with t.mu held).
func (t *queryTracker) trimSlow(db string, max int) {
	n := 0
	for _, q := range t.slow {
		if q.db == db {
			n++
		}
	}
	over, total := n-max, len(t.slow)-maxSlowTotal
	if over <= 0 && total <= 0 {
		return
	}
	kept := make([]*trackedQuery, 0, len(t.slow))
	for _, q := range t.slow {
		switch {
		case q.db == db && over > 0:
			over--
			total--
		case total > 0:
			total--
		default:
			kept = append(kept, q)
		}
	}
	t.slow = kept
}

// kill stops a running query of database db (any database with all).
func (t *queryTracker) kill(db, id string, all bool) bool {
	t.mu.Lock()
	q, ok := t.running[id]
	if ok && (all || q.db == db) && q.cancel != nil {
		q.state = "killed"
		q.cancel(killedCause)
	} else {
		ok = false
	}
	t.mu.Unlock()
	return ok
}

// list answers the running (or slow) queries of db (of every database
// with all), oldest first, as ArangoDB lists them.
func (t *queryTracker) list(db string, all, slow bool) []map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	var qs []*trackedQuery
	if slow {
		qs = t.slow
	} else {
		for _, q := range t.running {
			qs = append(qs, q)
		}
		sort.Slice(qs, func(i, j int) bool { return qs[i].started.Before(qs[j].started) })
	}
	out := []map[string]any{}
	for _, q := range qs {
		if !all && q.db != db {
			continue
		}
		e := map[string]any{"id": q.id, "database": q.db, "user": q.user, "query": q.query, "bindVars": q.bindVars,
			"started": q.started.UTC().Format("2006-01-02T15:04:05Z"), "state": q.state, "stream": q.stream,
			"modificationQuery": q.modifies, "warnings": 0}
		if e["bindVars"] == nil {
			e["bindVars"] = map[string]any{}
		}
		if slow {
			e["runTime"], e["peakMemoryUsage"], e["exitCode"] = q.runTime, q.peak, q.exitCode
		} else {
			e["runTime"], e["peakMemoryUsage"] = time.Since(q.started).Seconds(), q.b.Peak()
		}
		out = append(out, e)
	}
	return out
}

// clearSlow forgets the slow queries of db (of every database with all).
func (t *queryTracker) clearSlow(db string, all bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	kept := t.slow[:0]
	for _, q := range t.slow {
		if !all && q.db != db {
			kept = append(kept, q)
		}
	}
	clear(t.slow[len(kept):])
	t.slow = kept
}

// update applies a PUT of the properties: fields left out keep their
// value; maxSlowQueries and maxQueryStringLength are held to their caps.
func (t *queryTracker) update(u queryPropsUpdate) (queryProps, error) {
	for _, f := range []*float64{u.SlowQueryThreshold, u.SlowStreamingQueryThreshold} {
		if f != nil && (*f < 0 || *f > maxSlowThreshold) {
			return queryProps{}, newError(400, errBadParameter, "a slow query threshold is a number of seconds from 0 to "+strconv.Itoa(maxSlowThreshold))
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.propsLocked()
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.Enabled, u.Enabled)
	set(&p.TrackSlowQueries, u.TrackSlowQueries)
	set(&p.TrackBindVars, u.TrackBindVars)
	if u.MaxSlowQueries != nil {
		p.MaxSlowQueries = min(max(*u.MaxSlowQueries, 0), maxSlowQueriesCap)
	}
	if u.MaxQueryStringLength != nil {
		p.MaxQueryStringLength = min(max(*u.MaxQueryStringLength, 1), maxQueryStringLengthCap)
	}
	if u.SlowQueryThreshold != nil {
		p.SlowQueryThreshold = *u.SlowQueryThreshold
	}
	if u.SlowStreamingQueryThreshold != nil {
		p.SlowStreamingQueryThreshold = *u.SlowStreamingQueryThreshold
	}
	t.props, t.set = p, true
	dbs := map[string]bool{}
	for _, q := range t.slow {
		dbs[q.db] = true
	}
	for db := range dbs {
		t.trimSlow(db, p.MaxSlowQueries)
	}
	return p, nil
}

// queryPropsUpdate is the body of PUT /_api/query/properties.
type queryPropsUpdate struct {
	Enabled                     *bool    `json:"enabled"`
	TrackSlowQueries            *bool    `json:"trackSlowQueries"`
	TrackBindVars               *bool    `json:"trackBindVars"`
	MaxSlowQueries              *int     `json:"maxSlowQueries"`
	SlowQueryThreshold          *float64 `json:"slowQueryThreshold"`
	SlowStreamingQueryThreshold *float64 `json:"slowStreamingQueryThreshold"`
	MaxQueryStringLength        *int     `json:"maxQueryStringLength"`
}

// truncate cuts s to at most n bytes, on a character's boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// boundedBinds keeps the bind parameters whose JSON fits, all together,
// in max bytes (a parameter that does not fit is left out).
func boundedBinds(binds map[string]any, max int) map[string]any {
	out := map[string]any{}
	names := make([]string, 0, len(binds))
	for k := range binds {
		names = append(names, k)
	}
	sort.Strings(names)
	left := max
	for _, k := range names {
		data, err := json.Marshal(binds[k])
		if err != nil || len(data)+len(k) > left {
			continue
		}
		left -= len(data) + len(k)
		out[k] = json.RawMessage(data)
	}
	return out
}

// allDatabases reads ?all=true, which only _system may ask.
func allDatabases(r *request) (bool, error) {
	all := r.URL.Query().Get("all") == "true"
	if all && r.db != graphstore.System {
		return false, storeError(graphstore.ErrSystemOnly)
	}
	return all, nil
}

// query serves /_api/query: properties, current, slow, rules, and
// DELETE /{id} to kill a running query.
func (s *Server) query(r *request, rest []string) (any, int, error) {
	t := &s.cursors.tracked
	switch {
	case len(rest) == 1 && rest[0] == "properties" && r.Method == http.MethodGet:
		return t.properties(), 200, nil
	case len(rest) == 1 && rest[0] == "properties" && r.Method == http.MethodPut:
		var u queryPropsUpdate
		if err := readBody(r.Request, &u); err != nil {
			return nil, 0, err
		}
		p, err := t.update(u)
		if err != nil {
			return nil, 0, err
		}
		return p, 200, nil
	case len(rest) == 1 && (rest[0] == "current" || rest[0] == "slow") && r.Method == http.MethodGet:
		all, err := allDatabases(r)
		if err != nil {
			return nil, 0, err
		}
		return t.list(r.db, all, rest[0] == "slow"), 200, nil
	case len(rest) == 1 && rest[0] == "slow" && r.Method == http.MethodDelete:
		all, err := allDatabases(r)
		if err != nil {
			return nil, 0, err
		}
		t.clearSlow(r.db, all)
		return map[string]any{"error": false, "code": 200}, 200, nil
	case len(rest) == 1 && rest[0] == "rules" && r.Method == http.MethodGet:
		return optimizerRules(), 200, nil
	case len(rest) == 1 && r.Method == http.MethodDelete:
		all, err := allDatabases(r)
		if err != nil {
			return nil, 0, err
		}
		if !t.kill(r.db, rest[0], all) {
			return nil, 0, newError(404, errQueryNotFound, "query ID not found")
		}
		return map[string]any{"error": false, "code": 200}, 200, nil
	}
	return nil, 0, newError(405, 405, "method not supported")
}
