package graphdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// errQueueFull is ArangoDB's ERROR_QUEUE_FULL, answered with 503 when
// the tenant has as many queries running and waiting as it may.
const errQueueFull = 21003

// cursorRequest is the body of POST /_api/cursor, as ArangoDB reads it.
type cursorRequest struct {
	Query     string         `json:"query"`
	BindVars  map[string]any `json:"bindVars"`
	Count     bool           `json:"count"`
	BatchSize int            `json:"batchSize"`
	TTL       float64        `json:"ttl"`
	// MemoryLimit is the most bytes the query may use (0: the tenant's
	// limit); it cannot raise the tenant's limit.
	MemoryLimit int64 `json:"memoryLimit"`
	// Cache asks for the query results cache, which this server has not:
	// accepted, the query runs.
	Cache   bool `json:"cache"`
	Options struct {
		// MaxRuntime is the most seconds the query may run (0: the
		// tenant's limit); it cannot raise the tenant's limit.
		MaxRuntime float64 `json:"maxRuntime"`
		// Profile 2 adds the plan to the answer's extra.
		Profile   int `json:"profile"`
		Optimizer struct {
			Rules []string `json:"rules"`
		} `json:"optimizer"`
		// FullCount asks for extra.stats.fullCount: the rows before the
		// query's last top-level LIMIT.
		FullCount bool `json:"fullCount"`
		// AllowRetry keeps the last batch read, to be read again with
		// POST /_api/cursor/{id}/{batch}.
		AllowRetry bool `json:"allowRetry"`
		// Stream is accepted; the results are made at once all the same
		// (within the query's limits), and the query is tracked as a
		// streaming one.
		Stream bool `json:"stream"`
		// UsePlanCache is accepted; there is no plan cache.
		UsePlanCache bool `json:"usePlanCache"`
	} `json:"options"`
}

// queryRun is what running a cursor's query made: its results, the
// bytes they hold, its figures (extra.stats) and (asked with profile 2)
// its plan.
type queryRun struct {
	results []any
	held    int64
	stats   map[string]any
	plan    *aql.Plan
}

// queryLimits are a query's limits: the tenant's, lowered by what the
// request asks for.
func (s *Server) queryLimits(body *cursorRequest) budget.Limits {
	l := s.limits.Budget()
	if body.MemoryLimit > 0 && body.MemoryLimit < l.Memory {
		l.Memory = body.MemoryLimit
	}
	if d := time.Duration(body.Options.MaxRuntime * float64(time.Second)); d > 0 && d < l.Wall {
		l.Wall = d
	}
	return l
}

// runQuery parses and runs a cursor's query within the tenant's limits:
// it waits for a place among the tenant's queries (or is refused when
// too many wait), and stops when the client leaves, a limit is crossed,
// its run time is over or it is killed (DELETE /_api/query/{id}: it is
// tracked while it waits and runs).
func (s *Server) runQuery(r *request, body *cursorRequest) (*queryRun, error) {
	q, err := aql.ParseWithin(body.Query, s.limits)
	if err != nil {
		return nil, queryError(err)
	}
	binds := map[string]any{}
	for k, v := range body.BindVars {
		binds[strings.TrimPrefix(k, "@")] = v
	}
	var full *aql.FullCount
	if body.Options.FullCount {
		full = q.CountFull()
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	tracked := &s.cursors.tracked
	tq := tracked.start(r.db, s.auth.user, body.Query, body.BindVars, body.Options.Stream, q.Modifies(), cancel)
	exitCode := 0
	defer func() { tracked.finish(tq, exitCode) }()
	fail := func(e *apiError) (*queryRun, error) {
		exitCode = e.num
		return nil, e
	}
	release, err := s.queries.Enter(ctx)
	if errors.Is(err, budget.ErrBusy) {
		return fail(newError(503, errQueueFull, "queue full: "+err.Error()+" for this tenant; try again when one ends"))
	}
	if err != nil {
		return fail(newError(410, aql.ErrQueryKilled, "query killed: "+context.Cause(ctx).Error()))
	}
	defer release()
	b := budget.New(ctx, "query", s.queryLimits(body))
	defer b.Close()
	tracked.executing(tq, b)
	var run *queryRun
	start := time.Now()
	err = s.writing(r, q.Modifies(), func(reader *graphstore.Reader, w queryWriter) error {
		src := storeSource{s.store, r.db, reader, w}
		opts := aql.Options{NoIndexes: aql.DisabledIndexes(body.Options.Optimizer.Rules)}
		results, st, err := aql.RunStats(q, src, binds, b, opts)
		if err != nil {
			return queryError(err)
		}
		stats := map[string]any{"writesExecuted": st.WritesExecuted, "writesIgnored": st.WritesIgnored, "scannedFull": st.ScannedFull, "scannedIndex": st.ScannedIndex,
			"filtered": st.Filtered, "httpRequests": 0, "executionTime": time.Since(start).Seconds(), "peakMemoryUsage": b.Peak()}
		if full != nil {
			stats["fullCount"] = full.Of(len(results))
		}
		run = &queryRun{results: results, held: b.Held(), stats: stats}
		if body.Options.Profile >= 2 {
			if run.plan, err = aql.Explain(q, src, binds, opts); err != nil {
				return queryError(err)
			}
		}
		return nil
	})
	if err != nil {
		return fail(storeError(err))
	}
	return run, nil
}

// writing runs fn with a reader of the store as the request sees it and
// where its writes go: in the request's stream transaction, that
// transaction; for a query that writes, a transaction of its own,
// committed when fn succeeds (all its writes at once) and aborted when it
// fails (none); else the store, read as it is now.
func (s *Server) writing(r *request, writes bool, fn func(*graphstore.Reader, queryWriter) error) error {
	if r.txn != nil {
		return r.txn.txn.Use(func(reader *graphstore.Reader) error { return fn(reader, r.txn.txn) })
	}
	if !writes {
		return s.reading(r, func(reader *graphstore.Reader) error { return fn(reader, s.store) })
	}
	t, err := s.store.Begin()
	if err != nil {
		return err
	}
	defer t.Abort() // after a commit, nothing
	if err := t.Use(func(reader *graphstore.Reader) error { return fn(reader, t) }); err != nil {
		return err
	}
	return t.Commit()
}

// reading runs fn with a reader of the store as the request sees it: in
// its stream transaction, that transaction's view.
func (s *Server) reading(r *request, fn func(*graphstore.Reader) error) error {
	if r.txn != nil {
		return r.txn.txn.Use(fn)
	}
	reader, err := s.store.NewReader()
	if err != nil {
		return err
	}
	defer reader.Close()
	return fn(reader)
}

// cursorsFull is the error of a result that the tenant's open cursors
// have no room left to hold.
func cursorsFull(held, size, max int64) error {
	return newError(500, aql.ErrResourceLimit, fmt.Sprintf("resource limit exceeded: open cursors hold %s and this result %s, over their limit of %s; read or delete open cursors",
		budget.Bytes(held), budget.Bytes(size), budget.Bytes(max)))
}
