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

// cursor is a query's results being handed out in batches. Its fields
// change under cursors.mu.
type cursor struct {
	db      string
	results []any
	total   int // len(results), kept when they are dropped
	pos     int // results handed out so far
	size    int
	batch   int // the id of the last batch handed out
	last    []any
	count   bool
	retry   bool           // allowRetry: the last batch can be read again, the last one too
	stats   map[string]any // extra.stats
	ttl     time.Duration
	expires time.Time
	bytes   int64     // what the results hold, by the query's account
	plan    *aql.Plan // with profile 2
}

// cursors are a server's open cursors, and its queries' tracking (the
// state of its AQL queries lives here, with their cursors).
type cursors struct {
	mu      sync.Mutex
	next    int
	open    map[string]*cursor
	bytes   int64 // what the open cursors' results hold
	tracked queryTracker
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
// batch; POST /{id}[/{batch}] the next, or the last again (allowRetry);
// DELETE /{id} closes it.
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
		c := &cursor{db: r.db, results: run.results, total: len(run.results), size: body.BatchSize, count: body.Count,
			retry: body.Options.AllowRetry, stats: run.stats, plan: run.plan, ttl: cursorTTL, bytes: run.held}
		if c.size <= 0 {
			c.size = DefaultBatchSize
		}
		if body.TTL > 0 {
			c.ttl = time.Duration(min(body.TTL, maxCursorTTL.Seconds()) * float64(time.Second))
		}
		if c.size < len(run.results) { // the cursor stays open: room for its results?
			s.cursors.mu.Lock()
			s.cursors.sweep()
			open := s.cursors.bytes
			s.cursors.mu.Unlock()
			if open+run.held > s.limits.CursorBytes {
				return nil, 0, cursorsFull(open, run.held, s.limits.CursorBytes)
			}
		}
		return s.batch(c, "", "", 201)
	case len(rest) >= 1 && len(rest) <= 2 && r.Method == http.MethodPost:
		s.cursors.mu.Lock()
		c, ok := s.cursors.open[rest[0]]
		expired := ok && time.Now().After(c.expires)
		s.cursors.mu.Unlock()
		if !ok || c.db != r.db || expired {
			return nil, 0, newError(404, 1600, "cursor not found")
		}
		batch := ""
		if len(rest) == 2 {
			batch = rest[1]
		}
		return s.batch(c, rest[0], batch, 200)
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

// maxCursorTTL bounds the ttl a query may ask for its cursor.
const maxCursorTTL = time.Hour

// batch hands out a cursor's next batch (or, asked for the last batch's
// id, that batch again), registering the cursor while it has more and
// dropping it after its last (a retriable cursor stays until its ttl,
// for its last batch to be read again).
func (s *Server) batch(c *cursor, id, batch string, code int) (any, int, error) {
	cs := &s.cursors
	cs.mu.Lock()
	defer cs.mu.Unlock()
	hasMore := c.pos < c.total
	switch {
	case batch != "" && batch == strconv.Itoa(c.batch):
		if !c.retry {
			return nil, 0, newError(400, errBadParameter, "expecting allowRetry option to be true to read batch "+batch+" again")
		}
		c.expires = time.Now().Add(c.ttl)
		return c.body(id, code, hasMore), code, nil
	case batch != "" && (batch != strconv.Itoa(c.batch+1) || !hasMore):
		return nil, 0, newError(400, errBadParameter, "batch "+batch+" cannot be read: only the last batch ("+
			strconv.Itoa(c.batch)+") or, while the cursor has more, the next")
	}
	if hasMore || id == "" {
		end := min(c.total, c.pos+c.size)
		c.last = c.results[c.pos:end]
		c.pos = end
		c.batch++
		hasMore = c.pos < c.total
	}
	c.expires = time.Now().Add(c.ttl)
	if cs.open == nil {
		cs.open = map[string]*cursor{}
	}
	cs.sweep()
	keep := hasMore || c.retry && id != ""
	switch {
	case hasMore && id == "":
		cs.next++
		id = strconv.Itoa(cs.next)
		cs.open[id] = c
		cs.bytes += c.bytes
	case !keep && id != "":
		cs.drop(id)
	}
	if !hasMore {
		c.results = nil // only the last batch is kept, for a retry
	}
	if hasMore || keep { // an unread cursor's results go when it expires
		time.AfterFunc(c.ttl+time.Millisecond, func() {
			cs.mu.Lock()
			cs.sweep()
			cs.mu.Unlock()
		})
	}
	if !keep {
		id = ""
	}
	return c.body(id, code, hasMore), code, nil
}

// body answers the cursor's last batch (with cursors.mu held).
func (c *cursor) body(id string, code int, hasMore bool) map[string]any {
	result := c.last
	if result == nil {
		result = []any{}
	}
	extra := map[string]any{"warnings": []any{}, "stats": c.stats}
	if c.plan != nil {
		extra["plan"] = c.plan
	}
	body := map[string]any{"error": false, "code": code, "result": result, "hasMore": hasMore, "cached": false, "extra": extra}
	if id != "" {
		body["id"] = id
	}
	if hasMore {
		body["nextBatchId"] = strconv.Itoa(c.batch + 1)
	}
	if c.count {
		body["count"] = c.total
	}
	return body
}
