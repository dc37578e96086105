// Package graphdb is the graph database pod: an HTTP server (HTTP/1.1 and
// h2c) that answers the part of ArangoDB's HTTP API that
// github.com/arangodb/go-driver/v2 and the graphdb commands use, over the
// embedded store of package graphstore. docs/graphdb-http-api.md is the
// reference of what the driver sends and expects.
package graphdb

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// Version is the ArangoDB version the server answers as.
const Version = "3.12.4"

// Options configures a server.
type Options struct {
	// User and Password are the credentials requests must carry.
	User, Password string
	// Secret signs the JWTs (random when empty: tokens then last as long
	// as the server).
	Secret []byte
	// Limits fence the tenant's AQL queries (zero fields: aql.DefaultLimits).
	Limits aql.Limits
	// Logf receives the server's log lines (nil: the standard logger).
	Logf func(format string, args ...any)
	// TxnIdleTimeout aborts a stream transaction no request used for
	// this long (0: TxnIdleTimeout).
	TxnIdleTimeout time.Duration
}

// Server serves a graph store over ArangoDB's HTTP API.
type Server struct {
	store   *graphstore.Store
	auth    *auth
	cursors cursors
	limits  aql.Limits
	queries *budget.Gate // the queries running and waiting
	txns    transactions
	txnIdle time.Duration
	logf    func(format string, args ...any)
}

// New returns a server of store.
func New(store *graphstore.Store, o Options) *Server {
	secret := o.Secret
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	limits := o.Limits.OrDefault()
	logf := o.Logf
	if logf == nil {
		logf = log.Printf
	}
	store.SetComputer(computeValues)
	s := &Server{store: store, auth: &auth{user: o.User, password: o.Password, secret: secret, now: time.Now},
		limits: limits, queries: budget.NewGate("queries", limits.Concurrent, limits.Queue), logf: logf, txnIdle: o.TxnIdleTimeout}
	if s.txnIdle <= 0 {
		s.txnIdle = TxnIdleTimeout
	}
	go s.expireLoop()
	return s
}

// Limits returns the limits the server's queries run within.
func (s *Server) Limits() aql.Limits { return s.limits }

// Handler returns the server's HTTP handler, for HTTP/1.1 and h2c alike.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// Protocols are the protocols the server speaks: HTTP/1.1, and HTTP/2
// without TLS (prior knowledge), as the driver's HTTP/2 connection uses.
func Protocols() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &p
}

// apiError is an error as ArangoDB answers it.
type apiError struct {
	status, num int
	msg         string
}

func (e *apiError) Error() string { return e.msg }

func newError(status, num int, msg string) *apiError { return &apiError{status, num, msg} }

// storeError maps the store's errors to ArangoDB's.
func storeError(err error) *apiError {
	var ae *apiError
	if se := spaceError(err); se != nil {
		return se
	}
	if te := txnError(err); te != nil {
		return te
	}
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, graphstore.ErrTooMany):
		return newError(400, 32, err.Error())
	case errors.Is(err, graphstore.ErrDatabaseNotFound):
		return newError(404, 1228, "database not found")
	case errors.Is(err, graphstore.ErrDatabaseNameNFC):
		return newError(400, 1229, err.Error())
	case errors.Is(err, graphstore.ErrCollectionNameNFC):
		return newError(400, 1208, err.Error())
	case errors.Is(err, graphstore.ErrRenameTooLarge):
		return newError(400, 32, err.Error())
	case errors.Is(err, graphstore.ErrDatabaseName):
		return newError(400, 1229, "database name invalid")
	case errors.Is(err, graphstore.ErrDuplicateName):
		return newError(409, 1207, "duplicate name")
	case errors.Is(err, graphstore.ErrCollectionName):
		return newError(400, 1208, "illegal name")
	case errors.Is(err, graphstore.ErrCollectionNotFound):
		return newError(404, 1203, "collection or view not found")
	case errors.Is(err, graphstore.ErrSystemCollection):
		return newError(403, 11, "forbidden")
	case errors.Is(err, graphstore.ErrSystemOnly):
		return newError(403, 1230, "operation only allowed in system database")
	}
	return newError(500, 4, err.Error())
}

// request is a parsed request: its database and its path under /_api.
type request struct {
	*http.Request
	db   string
	path []string // after the database prefix, e.g. ["_api", "database", "x"]
	// docs is where the request's document reads and writes go: the
	// store, or the stream transaction (txn) its x-arango-trx-id names.
	docs docStore
	txn  *txnEntry
}

// serve answers a request; a panic in it is the request's failure (an
// ArangoDB-shaped 500, the stack in the log), not the process's.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rw := &recordingWriter{ResponseWriter: w}
	err := budget.Guard(func() error {
		s.answer(rw, r)
		return nil
	})
	var pe *budget.PanicError
	if errors.As(err, &pe) {
		s.logf("graph database: %s %s: %v\n%s", r.Method, r.URL.Path, pe.Value, pe.Stack)
		if !rw.wrote {
			writeError(rw, newError(500, 4, "internal error"))
		}
	}
}

// recordingWriter notes whether an answer has begun.
type recordingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *recordingWriter) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	if err := decodeBody(r); err != nil {
		writeError(w, err)
		return
	}
	req := &request{Request: r, db: graphstore.System, docs: s.store}
	path := strings.Trim(r.URL.Path, "/")
	parts := strings.Split(path, "/")
	if len(parts) >= 2 && parts[0] == "_db" {
		req.db, parts = parts[1], parts[2:]
	}
	req.path = parts
	if len(parts) == 2 && parts[0] == "_open" && parts[1] == "auth" && r.Method == http.MethodPost {
		s.login(w, r)
		return
	}
	if len(parts) == 3 && parts[0] == "_admin" && parts[1] == "server" && parts[2] == "availability" {
		s.availability(w, req) // without credentials, as in ArangoDB
		return
	}
	if !s.auth.allowed(r) {
		writeError(w, newError(401, 11, "not authorized to execute this request"))
		return
	}
	if _, err := s.store.Database(req.db); err != nil {
		writeError(w, storeError(err))
		return
	}
	if r.Header.Get(trxHeader) != "" && !(len(parts) >= 2 && parts[0] == "_api" && parts[1] == "transaction") {
		release, err := s.join(req)
		if err != nil {
			writeError(w, storeError(err))
			return
		}
		defer release()
	}
	if len(parts) == 2 && parts[0] == "_api" && parts[1] == "import" && r.Method == http.MethodPost {
		s.importDocs(w, req)
		return
	}
	if len(parts) >= 2 && parts[0] == "_api" && parts[1] == "document" {
		s.document(w, req, parts[2:])
		return
	}
	result, status, err := s.route(req)
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	writeJSON(w, status, result)
}

// route runs the request's endpoint.
func (s *Server) route(r *request) (any, int, error) {
	p := r.path
	if len(p) >= 2 && p[0] == "_admin" {
		return s.admin(r, p[1:])
	}
	if len(p) < 2 || p[0] != "_api" {
		return nil, 0, newError(404, 404, "unknown path '/"+strings.Join(p, "/")+"'")
	}
	switch p[1] {
	case "version":
		return s.version(r)
	case "key-generators":
		return keyGeneratorsOf(r)
	case "database":
		return s.database(r, p[2:])
	case "collection":
		return s.collection(r, p[2:])
	case "gharial":
		return s.gharial(r, p[2:])
	case "edges":
		return s.edges(r, p[2:])
	case "cursor":
		return s.cursor(r, p[2:])
	case "index":
		return s.index(r, p[2:])
	case "explain":
		return s.explain(r, p[2:])
	case "transaction":
		return s.transaction(r, p[2:])
	case "query":
		return s.query(r, p[2:])
	case "query-cache":
		return s.queryCache(r, p[2:])
	case "query-plan-cache":
		return s.queryPlanCache(r, p[2:])
	}
	return nil, 0, newError(404, 404, "unknown path '/"+strings.Join(p, "/")+"'")
}

// database serves /_api/database.
func (s *Server) database(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodPost:
		if r.db != graphstore.System {
			return nil, 0, storeError(graphstore.ErrSystemOnly)
		}
		var body struct {
			Name string `json:"name"`
		}
		if err := readBody(r.Request, &body); err != nil {
			return nil, 0, err
		}
		if _, err := s.store.CreateDatabase(body.Name); err != nil {
			return nil, 0, err
		}
		return ok(201, true), 201, nil
	case len(rest) == 0 && r.Method == http.MethodGet, len(rest) == 1 && rest[0] == "user" && r.Method == http.MethodGet:
		if r.db != graphstore.System {
			return nil, 0, storeError(graphstore.ErrSystemOnly)
		}
		return ok(200, s.store.Databases()), 200, nil
	case len(rest) == 1 && rest[0] == "current" && r.Method == http.MethodGet:
		info, err := s.store.Database(r.db)
		if err != nil {
			return nil, 0, err
		}
		return ok(200, map[string]any{"name": info.Name, "id": info.ID, "path": "", "isSystem": info.IsSystem,
			"sharding": "", "replicationFactor": 1, "writeConcern": 1}), 200, nil
	case len(rest) == 1 && r.Method == http.MethodDelete:
		if r.db != graphstore.System {
			return nil, 0, storeError(graphstore.ErrSystemOnly)
		}
		if rest[0] == graphstore.System { // as ArangoDB refuses it
			return nil, 0, newError(403, 11, "forbidden: the _system database cannot be dropped")
		}
		if err := s.store.DropDatabase(rest[0]); err != nil {
			return nil, 0, err
		}
		return ok(200, true), 200, nil
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// login serves POST /_open/auth.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	if err := readBody(r, &body); err != nil {
		writeError(w, storeError(err))
		return
	}
	if !s.auth.checkPassword(body.Username, body.Password) {
		writeError(w, newError(401, 401, "Wrong credentials"))
		return
	}
	writeJSON(w, 200, map[string]any{"jwt": s.auth.token(body.Username), "must_change_password": false})
}

// ok is a successful answer with a result.
func ok(code int, result any) map[string]any {
	return map[string]any{"error": false, "code": code, "result": result}
}

// maxBody bounds a request body.
const maxBody = 512 << 20

// readBody decodes a JSON request body into v.
func readBody(r *http.Request, v any) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return newError(400, 400, "cannot read the request body: "+err.Error())
	}
	if err := json.Unmarshal(data, v); err != nil {
		return vpackError(err)
	}
	return nil
}

// vpackError is ArangoDB's answer to a request body it cannot parse:
// error 600 with the parser's words. A value nested deeper than the
// JSON reader goes is "Nesting too deep", as VelocyPack says it.
func vpackError(err error) *apiError {
	msg := err.Error()
	if strings.HasSuffix(msg, "exceeded max depth") {
		msg = "Nesting too deep"
	}
	return newError(400, 600, "VPackError error: "+msg)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeError(w, newError(500, 4, err.Error()))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(data)
}

func writeError(w http.ResponseWriter, e *apiError) {
	data, _ := json.Marshal(map[string]any{"error": true, "code": e.status, "errorNum": e.num, "errorMessage": e.msg})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.status)
	w.Write(data)
}
