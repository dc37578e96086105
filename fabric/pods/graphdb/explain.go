package graphdb

import (
	"net/http"
	"strings"
	"time"

	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// explain serves POST /_api/explain: the plan a query would run by, with
// the index each FOR over a collection reads through; the query is
// parsed and planned, not run.
func (s *Server) explain(r *request, rest []string) (any, int, error) {
	if len(rest) != 0 || r.Method != http.MethodPost {
		return nil, 0, newError(405, 405, "method not supported")
	}
	start := time.Now()
	var body struct {
		Query    string         `json:"query"`
		BindVars map[string]any `json:"bindVars"`
		Options  struct {
			AllPlans  bool `json:"allPlans"`
			Optimizer struct {
				Rules []string `json:"rules"`
			} `json:"optimizer"`
		} `json:"options"`
	}
	if err := readBody(r.Request, &body); err != nil {
		return nil, 0, err
	}
	q, err := aql.ParseWithin(body.Query, s.limits)
	if err != nil {
		return nil, 0, queryError(err)
	}
	binds := map[string]any{}
	for k, v := range body.BindVars {
		binds[strings.TrimPrefix(k, "@")] = v
	}
	var plan *aql.Plan
	err = s.reading(r, func(reader *graphstore.Reader) error {
		plan, err = aql.Explain(q, storeSource{s.store, r.db, reader, nil}, binds, aql.Options{NoIndexes: aql.DisabledIndexes(body.Options.Optimizer.Rules)})
		if err != nil {
			return queryError(err)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	out := map[string]any{"error": false, "code": 200, "cacheable": false, "warnings": []any{},
		"stats": map[string]any{"rulesExecuted": len(plan.Rules), "rulesSkipped": 0, "plansCreated": 1, "peakMemoryUsage": 0,
			"executionTime": time.Since(start).Seconds()}}
	if body.Options.AllPlans {
		out["plans"] = []any{plan}
	} else {
		out["plan"] = plan
	}
	return out, 200, nil
}
