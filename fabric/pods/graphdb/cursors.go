package graphdb

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// DefaultBatchSize is a cursor's batch size when the query gives none.
const DefaultBatchSize = 1000

// cursorTTL is how long an unused cursor is kept (unless the query
// gives a ttl).
const cursorTTL = 30 * time.Second

// cursor is a query's results being handed out in batches.
type cursor struct {
	db      string
	results []any
	pos     int // results handed out so far
	size    int
	batch   int // the id of the last batch handed out
	last    []any
	count   bool
	ttl     time.Duration
	expires time.Time
	bytes   int64 // what the results hold, by the query's account
	stats   aql.Stats
	plan    *aql.Plan // with profile 2
}

// cursors are a server's open cursors.
type cursors struct {
	mu    sync.Mutex
	next  int
	open  map[string]*cursor
	bytes int64 // what the open cursors' results hold
}

// drop forgets an open cursor (with cursors.mu held).
func (cs *cursors) drop(id string) bool {
	c, ok := cs.open[id]
	if ok {
		cs.bytes -= c.bytes
		delete(cs.open, id)
	}
	return ok
}

// sweep drops the expired cursors (with cursors.mu held).
func (cs *cursors) sweep() {
	now := time.Now()
	for id, c := range cs.open {
		if now.After(c.expires) {
			cs.drop(id)
		}
	}
}

// storeSource reads a database's collections for a query.
type storeSource struct {
	store *graphstore.Store
	db    string
	r     *graphstore.Reader // the query's view, for traversals' reads
	w     queryWriter        // where the query's writes go
}

func (s storeSource) Scan(coll string, fn func(map[string]any) bool) error {
	err := s.r.Scan(s.db, coll, func(d graphstore.Doc) bool { return fn(d) })
	if errors.Is(err, graphstore.ErrCollectionNotFound) {
		return &aql.QueryError{Num: 1203, Msg: "AQL: collection or view not found: " + coll + " (while parsing)"}
	}
	return err
}

// Edges reads a vertex's edges through the edge indexes, then their
// documents.
func (s storeSource) Edges(coll, vertex, direction string) ([]map[string]any, error) {
	ns, err := s.Neighbors(coll, vertex, direction)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(ns))
	for _, n := range ns {
		doc, err := s.r.Document(s.db, coll, strings.TrimPrefix(n.EdgeID, coll+"/"))
		if err != nil {
			return nil, err
		}
		out = append(out, doc)
	}
	return out, nil
}

// Vertex reads a document by _id; nil when there is none.
// edgeDirections maps a direction, as AQL (OUTBOUND, INBOUND, ANY) or
// /_api/edges (out, in, any or none) writes it, to the indexes to read.
func edgeDirections(d string) ([]graphstore.Direction, bool) {
	switch strings.ToLower(d) {
	case "out", "outbound":
		return []graphstore.Direction{graphstore.Outbound}, true
	case "in", "inbound":
		return []graphstore.Direction{graphstore.Inbound}, true
	case "", "any":
		return []graphstore.Direction{graphstore.Outbound, graphstore.Inbound}, true
	}
	return nil, false
}

// Neighbors lists a vertex's edges from the edge indexes (aql.NeighborSource).
func (s storeSource) Neighbors(coll, vertex, direction string) ([]aql.Neighbor, error) {
	dirs, _ := edgeDirections(direction)
	var out []aql.Neighbor
	seen := map[string]bool{}
	for _, d := range dirs {
		ns, err := s.r.Neighbors(s.db, coll, vertex, d)
		if errors.Is(err, graphstore.ErrCollectionNotFound) {
			return nil, &aql.QueryError{Num: 1203, Msg: "collection or view not found: " + coll}
		}
		if err != nil {
			return nil, err
		}
		for _, n := range ns {
			if seen[n.Key] {
				continue
			}
			seen[n.Key] = true
			out = append(out, aql.Neighbor{EdgeID: coll + "/" + n.Key, Other: n.Other})
		}
	}
	return out, nil
}

func (s storeSource) Vertex(id string) (map[string]any, error) {
	coll, key, ok := strings.Cut(id, "/")
	if !ok {
		return nil, nil
	}
	doc, err := s.r.Document(s.db, coll, key)
	if errors.Is(err, graphstore.ErrDocumentNotFound) || errors.Is(err, graphstore.ErrCollectionNotFound) {
		return nil, nil
	}
	return doc, err
}

// GraphEdges returns a named graph's edge collections.
func (s storeSource) GraphEdges(name string) ([]string, error) {
	g, err := s.store.Graph(s.db, name)
	if err != nil {
		return nil, &aql.QueryError{Num: 1924, Msg: "graph '" + name + "' not found"}
	}
	_, edges := g.Collections()
	return edges, nil
}

// queryError maps a query's error to ArangoDB's answer.
func queryError(err error) *apiError {
	var se *aql.SyntaxError
	var qe *aql.QueryError
	switch {
	case errors.As(err, &se):
		if strings.HasPrefix(se.Msg, "query is empty") {
			return newError(400, 1502, "query is empty")
		}
		return newError(400, 1501, "AQL: "+se.Error()+" (while parsing)")
	case errors.As(err, &qe):
		status := 400
		switch qe.Num {
		case 1203, 1924:
			status = 404
		case aql.ErrResourceLimit:
			status = 500
		case aql.ErrQueryKilled:
			status = 410
		}
		return newError(status, qe.Num, qe.Msg)
	}
	return storeError(err)
}

// cursor serves /_api/cursor: POST runs a query and answers its first
// batch; POST /{id}[/{batch}] the next; DELETE /{id} closes it.
func (s *Server) cursor(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodPost:
		var body cursorRequest
		if err := readBody(r.Request, &body); err != nil {
			return nil, 0, err
		}
		run, err := s.runQuery(r, &body)
		if err != nil {
			return nil, 0, err
		}
		results, held := run.results, run.held
		c := &cursor{db: r.db, results: results, size: body.BatchSize, count: body.Count, ttl: cursorTTL, bytes: held, stats: run.stats, plan: run.plan}
		if c.size <= 0 {
			c.size = DefaultBatchSize
		}
		if body.TTL > 0 {
			c.ttl = time.Duration(body.TTL * float64(time.Second))
		}
		if c.size < len(results) { // the cursor stays open: room for its results?
			s.cursors.mu.Lock()
			s.cursors.sweep()
			open := s.cursors.bytes
			s.cursors.mu.Unlock()
			if open+held > s.limits.CursorBytes {
				return nil, 0, cursorsFull(open, held, s.limits.CursorBytes)
			}
		}
		return s.batch(c, "", 201), 201, nil
	case len(rest) >= 1 && len(rest) <= 2 && r.Method == http.MethodPost:
		s.cursors.mu.Lock()
		c, ok := s.cursors.open[rest[0]]
		expired := ok && time.Now().After(c.expires)
		s.cursors.mu.Unlock()
		if !ok || c.db != r.db || expired {
			return nil, 0, newError(404, 1600, "cursor not found")
		}
		if len(rest) == 2 && rest[1] == strconv.Itoa(c.batch) {
			return s.resend(c, rest[0]), 200, nil // a retry of the last batch
		}
		return s.batch(c, rest[0], 200), 200, nil
	case len(rest) == 1 && r.Method == http.MethodDelete:
		s.cursors.mu.Lock()
		ok := s.cursors.drop(rest[0])
		s.cursors.mu.Unlock()
		if !ok {
			return nil, 0, newError(404, 1600, "cursor not found")
		}
		return map[string]any{"error": false, "code": 202, "id": rest[0]}, 202, nil
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// batch hands out a cursor's next batch, registering the cursor while it
// has more and dropping it after its last.
func (s *Server) batch(c *cursor, id string, code int) map[string]any {
	end := min(len(c.results), c.pos+c.size)
	c.last = c.results[c.pos:end]
	c.pos = end
	c.batch++
	hasMore := c.pos < len(c.results)
	s.cursors.mu.Lock()
	c.expires = time.Now().Add(c.ttl)
	if s.cursors.open == nil {
		s.cursors.open = map[string]*cursor{}
	}
	s.cursors.sweep()
	if hasMore && id == "" {
		s.cursors.next++
		id = strconv.Itoa(s.cursors.next)
		s.cursors.open[id] = c
		s.cursors.bytes += c.bytes
	} else if !hasMore && id != "" {
		s.cursors.drop(id)
	}
	s.cursors.mu.Unlock()
	if hasMore { // an unread cursor's results go when it expires
		time.AfterFunc(c.ttl+time.Millisecond, func() {
			s.cursors.mu.Lock()
			s.cursors.sweep()
			s.cursors.mu.Unlock()
		})
	}
	return s.batchBody(c, id, code, hasMore)
}

// resend answers the last batch again.
func (s *Server) resend(c *cursor, id string) map[string]any {
	return s.batchBody(c, id, 200, c.pos < len(c.results))
}

func (s *Server) batchBody(c *cursor, id string, code int, hasMore bool) map[string]any {
	result := c.last
	if result == nil {
		result = []any{}
	}
	extra := map[string]any{"warnings": []any{}, "stats": map[string]any{"writesExecuted": c.stats.WritesExecuted, "writesIgnored": c.stats.WritesIgnored,
		"scannedFull": c.stats.ScannedFull, "scannedIndex": c.stats.ScannedIndex, "filtered": c.stats.Filtered, "httpRequests": 0, "executionTime": 0.0, "peakMemoryUsage": 0}}
	if c.plan != nil {
		extra["plan"] = c.plan
	}
	body := map[string]any{"error": false, "code": code, "result": result, "hasMore": hasMore, "cached": false, "extra": extra}
	if hasMore {
		body["id"] = id
		body["nextBatchId"] = strconv.Itoa(c.batch + 1)
	}
	if c.count {
		body["count"] = len(c.results)
	}
	return body
}
