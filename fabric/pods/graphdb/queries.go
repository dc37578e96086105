package graphdb

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/budget"
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
	Options     struct {
		// MaxRuntime is the most seconds the query may run (0: the
		// tenant's limit); it cannot raise the tenant's limit.
		MaxRuntime float64 `json:"maxRuntime"`
	} `json:"options"`
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
// too many wait), and stops when the client leaves, a limit is crossed or
// its run time is over. It returns the results and the bytes they hold,
// and sets stats to what its writes did.
func (s *Server) runQuery(r *request, body *cursorRequest, stats *aql.Stats) ([]any, int64, error) {
	q, err := aql.ParseWithin(body.Query, s.limits)
	if err != nil {
		return nil, 0, queryError(err)
	}
	binds := map[string]any{}
	for k, v := range body.BindVars {
		binds[strings.TrimPrefix(k, "@")] = v
	}
	release, err := s.queries.Enter(r.Context())
	if errors.Is(err, budget.ErrBusy) {
		return nil, 0, newError(503, errQueueFull, "queue full: "+err.Error()+" for this tenant; try again when one ends")
	}
	if err != nil {
		return nil, 0, newError(410, aql.ErrQueryKilled, "query killed: "+err.Error())
	}
	defer release()
	b := budget.New(r.Context(), "query", s.queryLimits(body))
	defer b.Close()
	reader, err := s.store.NewReader()
	if err != nil {
		return nil, 0, storeError(err)
	}
	defer reader.Close()
	results, writes, err := aql.RunStats(q, storeSource{s.store, r.db, reader}, binds, b)
	*stats = writes
	if err != nil {
		return nil, 0, queryError(err)
	}
	return results, b.Held(), nil
}

// cursorsFull is the error of a result that the tenant's open cursors
// have no room left to hold.
func cursorsFull(held, size, max int64) error {
	return newError(500, aql.ErrResourceLimit, fmt.Sprintf("resource limit exceeded: open cursors hold %s and this result %s, over their limit of %s; read or delete open cursors",
		budget.Bytes(held), budget.Bytes(size), budget.Bytes(max)))
}
