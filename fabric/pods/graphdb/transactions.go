package graphdb

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// Stream transactions (/_api/transaction): a transaction's writes stay in
// it, seen by the requests that carry its id in the x-arango-trx-id
// header and by nobody else, until it commits (all at once) or aborts.
const (
	// MaxTransactions bounds the transactions running at once.
	MaxTransactions = 64
	// TxnIdleTimeout aborts a transaction no request used for this long
	// (ArangoDB's --transaction.streaming-idle-timeout).
	TxnIdleTimeout = 60 * time.Second
	// keptEnded is how many ended transactions' states are remembered.
	keptEnded = 1024
	// trxHeader names the transaction a request runs in.
	trxHeader = "x-arango-trx-id"
)

// docStore is where a request's document reads and writes go: the store,
// or the stream transaction it runs in.
type docStore interface {
	InsertIf(db, coll string, docs []any, mode graphstore.OverwriteMode, keepNull, mergeObjects bool, pre graphstore.Precondition) ([]graphstore.Result, error)
	ModifyIf(db, coll string, items []any, replace, keepNull, mergeObjects bool, pre graphstore.Precondition) ([]graphstore.Result, error)
	RemoveIf(db, coll string, items []any, pre graphstore.Precondition) ([]graphstore.Result, error)
	Lookup(db, coll string, items []any) ([]json.RawMessage, []error, error)
	Document(db, coll, key string) ([]byte, error)
}

// txnEntry is a running transaction.
type txnEntry struct {
	id, db string
	txn    *graphstore.Txn
	turn   chan struct{} // held by the request using it: one at a time
	used   time.Time     // when a request last let go of it
}

// transactions are a server's stream transactions.
type transactions struct {
	mu      sync.Mutex
	running map[string]*txnEntry
	ended   map[string]string // id: committed or aborted
	order   []string          // ended ids, oldest first
}

// newTxnID returns a transaction id: a number, as ArangoDB's.
func newTxnID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return strconv.FormatUint(binary.BigEndian.Uint64(b[:])>>12, 10)
}

// end records a transaction's end (callers hold mu).
func (ts *transactions) end(id, state string) {
	delete(ts.running, id)
	if ts.ended == nil {
		ts.ended = map[string]string{}
	}
	ts.ended[id] = state
	ts.order = append(ts.order, id)
	if len(ts.order) > keptEnded {
		delete(ts.ended, ts.order[0])
		ts.order = ts.order[1:]
	}
}

// join makes a request that names a transaction run in it: it waits its
// turn (one request of a transaction at a time) and returns the release
// of it; a transaction that is not running is ArangoDB's 1655.
func (s *Server) join(r *request) (func(), error) {
	id := r.Header.Get(trxHeader)
	s.txns.mu.Lock()
	e, ok := s.txns.running[id]
	s.txns.mu.Unlock()
	if !ok || e.db != r.db {
		return nil, newError(404, 1655, "transaction '"+id+"' not found")
	}
	select {
	case e.turn <- struct{}{}:
	case <-r.Context().Done():
		return nil, newError(410, 1500, "request ended while waiting for its transaction")
	}
	r.txn, r.docs = e, e.txn
	return func() {
		s.txns.mu.Lock()
		e.used = time.Now()
		s.txns.mu.Unlock()
		<-e.turn
	}, nil
}

// transaction serves /_api/transaction: POST /begin starts one, GET lists
// them, GET /{id} tells its state, PUT /{id} commits it and DELETE /{id}
// aborts it.
func (s *Server) transaction(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 1 && rest[0] == "begin" && r.Method == http.MethodPost:
		return s.beginTxn(r)
	case len(rest) == 0 && r.Method == http.MethodGet:
		s.txns.mu.Lock()
		list := []any{}
		for id, e := range s.txns.running {
			if e.db == r.db {
				list = append(list, map[string]any{"id": id, "state": "running"})
			}
		}
		s.txns.mu.Unlock()
		return map[string]any{"error": false, "code": 200, "transactions": list}, 200, nil
	case len(rest) == 1 && (r.Method == http.MethodGet || r.Method == http.MethodPut || r.Method == http.MethodDelete):
		return s.endTxn(r, rest[0])
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// beginTxn starts a transaction over the collections it names (each must
// exist).
func (s *Server) beginTxn(r *request) (any, int, error) {
	var body struct {
		Collections map[string]json.RawMessage `json:"collections"`
	}
	if err := readBody(r.Request, &body); err != nil {
		return nil, 0, err
	}
	for _, access := range []string{"read", "write", "exclusive"} {
		raw, ok := body.Collections[access]
		if !ok || string(raw) == "null" {
			continue
		}
		var names []string
		var one string
		if err := json.Unmarshal(raw, &names); err != nil {
			if err := json.Unmarshal(raw, &one); err != nil {
				return nil, 0, newError(400, 10, "bad parameter: collections."+access+" must be a name or a list of names")
			}
			names = []string{one}
		}
		for _, n := range names {
			if _, err := s.store.Collection(r.db, n); err != nil {
				return nil, 0, newError(404, 1203, "collection or view not found: "+n)
			}
		}
	}
	s.txns.mu.Lock()
	defer s.txns.mu.Unlock()
	if len(s.txns.running) >= MaxTransactions {
		return nil, 0, newError(400, 32, "resource limit exceeded: "+strconv.Itoa(MaxTransactions)+" stream transactions are running; commit or abort one")
	}
	t, err := s.store.Begin()
	if err != nil {
		return nil, 0, err
	}
	id := newTxnID()
	if s.txns.running == nil {
		s.txns.running = map[string]*txnEntry{}
	}
	s.txns.running[id] = &txnEntry{id: id, db: r.db, txn: t, turn: make(chan struct{}, 1), used: time.Now()}
	return map[string]any{"error": false, "code": 201, "result": map[string]any{"id": id, "status": "running"}}, 201, nil
}

// endTxn tells a transaction's state (GET), commits it (PUT) or aborts it
// (DELETE), once the request using it is done.
func (s *Server) endTxn(r *request, id string) (any, int, error) {
	s.txns.mu.Lock()
	e, running := s.txns.running[id]
	state, ended := s.txns.ended[id]
	s.txns.mu.Unlock()
	answer := func(status string) (any, int, error) {
		return map[string]any{"error": false, "code": 200, "result": map[string]any{"id": id, "status": status}}, 200, nil
	}
	if !running || e.db != r.db {
		if ended && r.Method == http.MethodGet {
			return answer(state)
		}
		if ended && (r.Method == http.MethodPut && state == "committed" || r.Method == http.MethodDelete && state == "aborted") {
			return answer(state) // ending it again the same way
		}
		if ended {
			return nil, 0, newError(409, 1653, "transaction '"+id+"' is already "+state)
		}
		return nil, 0, newError(404, 1655, "transaction '"+id+"' not found")
	}
	if r.Method == http.MethodGet {
		return answer("running")
	}
	select {
	case e.turn <- struct{}{}:
	case <-r.Context().Done():
		return nil, 0, newError(410, 1500, "request ended while waiting for its transaction")
	}
	defer func() { <-e.turn }()
	s.txns.mu.Lock()
	if _, still := s.txns.running[id]; !still {
		s.txns.mu.Unlock()
		return nil, 0, newError(404, 1655, "transaction '"+id+"' not found")
	}
	s.txns.mu.Unlock()
	status, err := "aborted", error(nil)
	if r.Method == http.MethodPut {
		status = "committed"
		err = e.txn.Commit()
	} else {
		e.txn.Abort()
	}
	s.txns.mu.Lock()
	if err != nil {
		s.txns.end(id, "aborted")
	} else {
		s.txns.end(id, status)
	}
	s.txns.mu.Unlock()
	if err != nil {
		return nil, 0, err
	}
	return answer(status)
}

// expireTxns aborts the transactions idle for longer than the server's
// idle timeout
// (one a request holds is not idle).
func (s *Server) expireTxns(now time.Time) {
	s.txns.mu.Lock()
	var idle []*txnEntry
	for _, e := range s.txns.running {
		if now.Sub(e.used) > s.txnIdle {
			idle = append(idle, e)
		}
	}
	s.txns.mu.Unlock()
	for _, e := range idle {
		select {
		case e.turn <- struct{}{}:
		default:
			continue // in use
		}
		e.txn.Abort()
		s.txns.mu.Lock()
		s.txns.end(e.id, "aborted")
		s.txns.mu.Unlock()
		<-e.turn
		s.logf("graph database: stream transaction %s aborted after %s idle", e.id, s.txnIdle)
	}
}

// txnError maps the store's transaction errors to ArangoDB's (nil for
// others).
func txnError(err error) *apiError {
	switch {
	case errors.Is(err, graphstore.ErrTxnLocked):
		return newError(409, 1200, "conflict, write-write: "+err.Error())
	case errors.Is(err, graphstore.ErrTxnDone):
		return newError(404, 1655, "transaction not found: it has ended")
	case errors.Is(err, graphstore.ErrTxnSize):
		return newError(400, 32, "resource limit exceeded: "+err.Error())
	case errors.Is(err, graphstore.ErrTxnDrops):
		return newError(404, 1203, err.Error())
	}
	return nil
}
