package graphdb

import (
	"net/http"
	"runtime"
	"strconv"
	"strings"
)

// The endpoints a driver asks before anything else, answered as ArangoDB
// 3.12's single server answers them (arangod's RestAdminServerHandler,
// RestVersionHandler and RestKeyGeneratorsHandler): whether the server
// takes requests, its role, its mode, its version and the key generators
// collections may name.

// keyGenerators are the key generators the store implements: keys it
// makes are ascending numbers (ArangoDB's "traditional").
var keyGenerators = []string{"traditional"}

// availability serves GET /_admin/server/availability, which ArangoDB
// answers without credentials (load balancers and the drivers' start-up
// probes ask it): 200 with the mode while the store takes writes, 503
// (errorNum 503) once its disk failed and it refuses them, as ArangoDB
// answers when its storage engine's health check fails. It is the
// server's answer under any /_db/{name}/ prefix: without credentials, it
// tells nothing of which databases exist.
func (s *Server) availability(w http.ResponseWriter, r *request) {
	if r.Method != http.MethodGet {
		writeError(w, newError(405, 405, "method not supported"))
		return
	}
	if s.store.Failed() != nil {
		writeError(w, newError(503, 503, "service unavailable"))
		return
	}
	writeJSON(w, 200, map[string]any{"error": false, "code": 200, "mode": s.mode()})
}

// mode is the server's mode as ArangoDB names it: "default", or
// "readonly" once the store's disk failed and it takes reads only.
func (s *Server) mode() string {
	if s.store.Failed() != nil {
		return "readonly"
	}
	return "default"
}

// admin serves /_admin/... (the server's own endpoints, under any
// database as in ArangoDB).
func (s *Server) admin(r *request, rest []string) (any, int, error) {
	switch {
	case len(rest) == 1 && rest[0] == "version":
		return s.version(r)
	case len(rest) == 2 && rest[0] == "server" && rest[1] == "role":
		if r.Method != http.MethodGet {
			return nil, 0, newError(405, 405, "method not supported")
		}
		return map[string]any{"error": false, "code": 200, "role": "SINGLE", "mode": "default"}, 200, nil
	case len(rest) == 2 && rest[0] == "server" && rest[1] == "mode":
		return s.serverMode(r)
	}
	return nil, 0, newError(404, 404, "unknown path '/"+strings.Join(r.path, "/")+"'")
}

// serverMode serves GET and PUT /_admin/server/mode. The store has no
// read-only switch: PUT accepts "default" (the mode it is in unless its
// disk failed) and refuses "readonly" as not implemented rather than
// claim writes are blocked when they are not.
func (s *Server) serverMode(r *request) (any, int, error) {
	switch r.Method {
	case http.MethodGet:
		return map[string]any{"error": false, "code": 200, "mode": s.mode()}, 200, nil
	case http.MethodPut:
		var body map[string]any
		if err := readBody(r.Request, &body); err != nil {
			return nil, 0, newError(400, 400, "invalid JSON")
		}
		mode, ok := body["mode"].(string)
		switch {
		case !ok:
			return nil, 0, newError(400, 400, "mode must be a string")
		case mode == "readonly":
			return nil, 0, newError(501, 9, "not implemented: the embedded graph store has no read-only mode")
		case mode != "default":
			return nil, 0, newError(400, 400, "mode invalid")
		case s.store.Failed() != nil:
			return nil, 0, newError(400, 500, "couldn't set requested mode: the store's disk failed; it takes writes again once the fabric restarts")
		}
		return map[string]any{"error": false, "code": 200, "mode": s.mode()}, 200, nil
	}
	return nil, 0, newError(405, 405, "method not supported")
}

// version serves /_api/version and /_admin/version; with details=true the
// answer has ArangoDB's details object, its values strings. v8-version is
// "none", as a server without JavaScript reports it, so that clients skip
// what needs JavaScript (transactions in JS, tasks, Foxx, user functions).
func (s *Server) version(r *request) (any, int, error) {
	v := map[string]any{"server": "arango", "version": Version, "license": "community"}
	if queryBool(r.URL.Query().Get("details")) {
		arch := strconv.Itoa(strconv.IntSize) + "bit"
		v["details"] = map[string]any{
			"architecture":        arch,
			"arm":                 strconv.FormatBool(strings.HasPrefix(runtime.GOARCH, "arm")),
			"asan":                "false",
			"assertions":          "false",
			"endianness":          "little",
			"full-version-string": "ArangoDB " + Version + " community [" + runtime.GOOS + "] " + arch + ", fabric embedded graph store, " + runtime.Version(),
			"go-version":          runtime.Version(),
			"license":             "community",
			"maintainer-mode":     "false",
			"mode":                "server",
			"platform":            runtime.GOOS,
			"role":                "SINGLE",
			"server-version":      Version,
			"sizeof void*":        strconv.Itoa(strconv.IntSize / 8),
			"v8-version":          "none",
		}
	}
	return v, 200, nil
}

// keyGeneratorsOf serves GET /_api/key-generators: an object with only
// keyGenerators, as ArangoDB answers it.
func keyGeneratorsOf(r *request) (any, int, error) {
	if r.Method != http.MethodGet {
		return nil, 0, newError(405, 405, "method not supported")
	}
	return map[string]any{"keyGenerators": keyGenerators}, 200, nil
}

// queryBool reads a boolean query parameter as ArangoDB does: true, yes,
// on, y and 1 (any case) are true.
func queryBool(v string) bool {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "y", "1":
		return true
	}
	return false
}
