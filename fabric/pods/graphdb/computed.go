package graphdb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/fabricops/fabric/fabric/lib/aql"
	"github.com/fabricops/fabric/fabric/lib/budget"
	"github.com/fabricops/fabric/fabric/lib/graphstore"
)

// Computed values (ArangoDB's computedValues): attributes a collection
// computes with an AQL expression ("RETURN ...") on inserts, updates and
// replaces. The expression sees the document as @doc. It is parsed when
// the property is set (an expression that does not parse, or that is not
// one RETURN of an expression, is refused then), and evaluated for each
// document written, within small fences: the store evaluates some of
// them under its write lock.
//
// As in ArangoDB, an expression may not hold a subquery, another
// operation (FOR, LET, FILTER ...), a bind parameter other than @doc, or
// a function that reads documents. DATE_NOW() is the time of the write
// (the evaluator has no clock: it is given to the expression as a value).

// Fences of computed values.
const (
	// maxComputedValues bounds a collection's computed values.
	maxComputedValues = 32
	// maxExpression bounds the text of one expression.
	maxExpression = 16 << 10
	// computeMemory and computeTime bound one evaluation: what it makes
	// (and its result), and its run time.
	computeMemory = 1 << 20
	computeTime   = 50 * time.Millisecond
	// maxCachedExpressions bounds the parsed expressions kept (shared by
	// the process's servers; parsing is pure).
	maxCachedExpressions = 1024
)

// nowBind is the bind parameter DATE_NOW() becomes.
const nowBind = "computedValueNow"

// computeOps are the writes computeOn names, in ArangoDB's order.
var computeOps = []string{"insert", "update", "replace"}

// forbiddenKeywords are the keywords of operations and subqueries, which
// a computed value's expression may not hold.
var forbiddenKeywords = map[string]bool{"FOR": true, "LET": true, "FILTER": true, "SORT": true, "LIMIT": true,
	"COLLECT": true, "INSERT": true, "UPDATE": true, "REPLACE": true, "REMOVE": true, "UPSERT": true, "WITH": true,
	"WINDOW": true, "SEARCH": true, "RETURN": true, "PRUNE": true, "GRAPH": true, "SHORTEST_PATH": true,
	"K_SHORTEST_PATHS": true, "K_PATHS": true, "ALL_SHORTEST_PATHS": true, "INTO": true}

// forbiddenFunctions read documents or run code.
var forbiddenFunctions = map[string]bool{"DOCUMENT": true, "CALL": true, "APPLY": true, "COLLECTION_COUNT": true, "COLLECTIONS": true}

// expression is a parsed computed value expression.
type expression struct {
	q        *aql.Query
	doc, now bool // whether it reads @doc, DATE_NOW()
}

// expressions caches parsed expressions by their text.
var expressions struct {
	sync.Mutex
	m map[string]*expression
}

// computedError is the error of a computed value that is refused.
func computedError(format string, args ...any) *apiError {
	return newError(400, 10, "invalid 'computedValues' entry: "+fmt.Sprintf(format, args...))
}

// parseExpression parses a computed value's expression (cached).
func parseExpression(text string) (*expression, error) {
	expressions.Lock()
	e, ok := expressions.m[text]
	expressions.Unlock()
	if ok {
		return e, nil
	}
	if len(text) > maxExpression {
		return nil, computedError("expression is %d bytes, over the limit of %d", len(text), maxExpression)
	}
	toks, err := aql.Lex(text)
	if err != nil {
		return nil, computedError("%v", err)
	}
	if len(toks) < 2 || toks[0].Kind != aql.Keyword || toks[0].Text != "RETURN" {
		return nil, computedError("expression must start with RETURN: %q", text)
	}
	e = &expression{}
	var b strings.Builder
	last := 0
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.Kind == aql.Keyword && forbiddenKeywords[t.Text]:
			return nil, computedError("expression may not hold %s (no subqueries or operations): %q", t.Text, text)
		case t.Kind == aql.BindColl || t.Kind == aql.BindParam && t.Text != "doc":
			return nil, computedError("expression may use no bind parameter but @doc: %q", text)
		case t.Kind == aql.BindParam:
			e.doc = true
		case t.Kind == aql.Ident && i+1 < len(toks) && toks[i+1].Text == "(" && toks[i+1].Kind == aql.Operator:
			name := strings.ToUpper(t.Text)
			if forbiddenFunctions[name] {
				return nil, computedError("expression may not call %s(): %q", name, text)
			}
			if name == "DATE_NOW" && i+2 < len(toks) && toks[i+2].Kind == aql.Operator && toks[i+2].Text == ")" {
				b.WriteString(text[last:t.Offset])
				b.WriteString("@" + nowBind)
				last = toks[i+2].Offset + 1
				e.now = true
				i += 2
			}
		}
	}
	b.WriteString(text[last:])
	q, err := aql.ParseWithin(b.String(), aql.Limits{QueryBytes: 2 * maxExpression, Nesting: 64})
	if err != nil {
		return nil, computedError("%v", err)
	}
	e.q = q
	expressions.Lock()
	if expressions.m == nil || len(expressions.m) >= maxCachedExpressions {
		expressions.m = map[string]*expression{}
	}
	expressions.m[text] = e
	expressions.Unlock()
	return e, nil
}

// computedInput is a computed value as a request gives it.
type computedInput struct {
	Name          string   `json:"name"`
	Expression    string   `json:"expression"`
	ComputeOn     []string `json:"computeOn"`
	Overwrite     *bool    `json:"overwrite"`
	KeepNull      *bool    `json:"keepNull"`
	FailOnWarning *bool    `json:"failOnWarning"`
}

// checkComputedValues checks the computed values of a request (null or
// an array) and returns them as the store keeps them, ArangoDB's
// defaults filled in: computeOn all writes, keepNull true,
// failOnWarning false.
func checkComputedValues(raw json.RawMessage) ([]graphstore.ComputedValue, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var in []computedInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, computedError("expecting an array of objects: %v", err)
	}
	if len(in) > maxComputedValues {
		return nil, computedError("%d computed values, over the limit of %d", len(in), maxComputedValues)
	}
	out := make([]graphstore.ComputedValue, 0, len(in))
	seen := map[string]bool{}
	for _, c := range in {
		switch c.Name {
		case "":
			return nil, computedError("name must be a non-empty string")
		case "_key", "_id", "_rev", "_from", "_to":
			return nil, computedError("cannot compute values for system attribute '%s'", c.Name)
		}
		if seen[c.Name] {
			return nil, computedError("duplicate attribute name '%s'", c.Name)
		}
		seen[c.Name] = true
		if c.Overwrite == nil {
			return nil, computedError("'overwrite' must be a boolean for attribute '%s'", c.Name)
		}
		if _, err := parseExpression(c.Expression); err != nil {
			return nil, err
		}
		on := c.ComputeOn
		if len(on) == 0 {
			on = computeOps
		}
		ops := map[string]bool{}
		for _, op := range on {
			if op != "insert" && op != "update" && op != "replace" {
				return nil, computedError("invalid 'computeOn' value '%s' for attribute '%s'", op, c.Name)
			}
			ops[op] = true
		}
		cv := graphstore.ComputedValue{Name: c.Name, Expression: c.Expression, Overwrite: *c.Overwrite, KeepNull: true}
		for _, op := range computeOps {
			if ops[op] {
				cv.ComputeOn = append(cv.ComputeOn, op)
			}
		}
		if c.KeepNull != nil {
			cv.KeepNull = *c.KeepNull
		}
		if c.FailOnWarning != nil {
			cv.FailOnWarning = *c.FailOnWarning
		}
		out = append(out, cv)
	}
	return out, nil
}

// noDocuments is the source of computed value expressions: they read no
// collection.
type noDocuments struct{}

func (noDocuments) Scan(coll string, _ func(map[string]any) bool) error {
	return &aql.QueryError{Num: 1540, Msg: "a computed value's expression cannot read collection '" + coll + "'"}
}

// computeValues is the store's Computer: it sets the computed values of
// info that op computes into doc, in their order.
func computeValues(info *graphstore.CollectionInfo, op graphstore.ComputeOp, doc graphstore.Doc) error {
	for _, cv := range info.ComputedValues {
		if !computesOn(cv, op) {
			continue
		}
		if _, has := doc[cv.Name]; has && !cv.Overwrite {
			continue
		}
		v, err := evaluate(cv, doc)
		if err != nil {
			return err
		}
		if v == nil && !cv.KeepNull {
			if cv.Overwrite {
				delete(doc, cv.Name)
			}
			continue
		}
		doc[cv.Name] = v
	}
	return nil
}

// computesOn reports whether a computed value is computed on op.
func computesOn(cv graphstore.ComputedValue, op graphstore.ComputeOp) bool {
	for _, o := range cv.ComputeOn {
		if o == string(op) {
			return true
		}
	}
	return false
}

// evaluate evaluates a computed value's expression on doc, within the
// fences: a crossed fence fails the write; another error does when
// failOnWarning is set, and gives null otherwise (ArangoDB's warning).
func evaluate(cv graphstore.ComputedValue, doc graphstore.Doc) (any, error) {
	e, err := parseExpression(cv.Expression)
	if err != nil {
		return nil, err
	}
	binds := map[string]any{}
	if e.doc {
		binds["doc"] = map[string]any(doc)
	}
	if e.now {
		binds[nowBind] = float64(time.Now().UnixMilli())
	}
	b := budget.New(context.Background(), "computed value", budget.Limits{Memory: computeMemory, Wall: computeTime, Result: computeMemory})
	res, err := aql.RunWithin(e.q, noDocuments{}, binds, b)
	b.Close()
	if err != nil {
		num := 1540
		if qe, ok := err.(*aql.QueryError); ok {
			num = qe.Num
		}
		if num == aql.ErrResourceLimit || num == aql.ErrQueryKilled || cv.FailOnWarning {
			return nil, newError(400, num, fmt.Sprintf("failed to compute value for attribute '%s': %v", cv.Name, err))
		}
		return nil, nil
	}
	if len(res) == 0 {
		return nil, nil
	}
	return res[0], nil
}
