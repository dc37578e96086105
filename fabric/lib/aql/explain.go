package aql

import (
	"fmt"
	"strings"
)

// Options change how a query runs.
type Options struct {
	// NoIndexes makes every FOR over a collection scan it (the optimizer
	// rule use-indexes turned off).
	NoIndexes bool
}

// RuleUseIndexes is the optimizer rule of reading a collection through
// an index, as ArangoDB names it.
const RuleUseIndexes = "use-indexes"

// DisabledIndexes applies a query's optimizer rules ("-all", "+all",
// "-use-indexes", "+use-indexes", in order; others are ignored) and
// reports whether the use of indexes ends up turned off.
func DisabledIndexes(rules []string) bool {
	off := false
	for _, r := range rules {
		switch strings.TrimSpace(r) {
		case "-all", "-" + RuleUseIndexes:
			off = true
		case "+all", "+" + RuleUseIndexes:
			off = false
		}
	}
	return off
}

// Plan is a query's execution plan as ArangoDB's explain describes it:
// its nodes in order (each depending on the one before), the optimizer
// rules applied and the collections read.
type Plan struct {
	Nodes       []map[string]any `json:"nodes"`
	Rules       []string         `json:"rules"`
	Collections []map[string]any `json:"collections"`
	Variables   []map[string]any `json:"variables"`
	// EstimatedCost and EstimatedNrItems are rough: a collection counts
	// as its documents, an index lookup as one.
	EstimatedCost    float64 `json:"estimatedCost"`
	EstimatedNrItems int     `json:"estimatedNrItems"`
	IsModification   bool    `json:"isModificationQuery"`
}

// planner builds a Plan.
type planner struct {
	src   Source
	binds map[string]any
	opts  Options
	plan  *Plan
	vars  map[string]int
	colls map[string]bool
	rules map[string]bool
}

// Explain returns the plan a query runs by (its bind parameters must all
// be given, as for Run): which index each FOR over a collection reads
// through, when one serves its FILTERs.
func Explain(q *Query, src Source, binds map[string]any, opts Options) (*Plan, error) {
	declared := map[string]bool{}
	collectBinds(q, declared)
	for name := range declared {
		if _, ok := binds[name]; !ok {
			return nil, &QueryError{1551, fmt.Sprintf("no value specified for declared bind parameter '%s'", name)}
		}
	}
	for name := range binds {
		if !declared[name] {
			return nil, &QueryError{1552, fmt.Sprintf("bind parameter '%s' was not declared in the query", name)}
		}
	}
	p := &planner{src: src, binds: binds, opts: opts, plan: &Plan{Rules: []string{}, Collections: []map[string]any{}, Variables: []map[string]any{}},
		vars: map[string]int{}, colls: map[string]bool{}, rules: map[string]bool{}}
	p.node("SingletonNode", nil)
	p.ops(q.Ops, scope{})
	for r := range p.rules {
		p.plan.Rules = append(p.plan.Rules, r)
	}
	return p.plan, nil
}

// node appends a node depending on the one before.
func (p *planner) node(typ string, fields map[string]any) {
	n := map[string]any{"type": typ, "id": len(p.plan.Nodes) + 1, "dependencies": []int{}, "estimatedCost": p.plan.EstimatedCost + 1,
		"estimatedNrItems": max(p.plan.EstimatedNrItems, 1)}
	if len(p.plan.Nodes) > 0 {
		n["dependencies"] = []int{len(p.plan.Nodes)}
	}
	for k, v := range fields {
		n[k] = v
	}
	p.plan.EstimatedCost++
	p.plan.Nodes = append(p.plan.Nodes, n)
}

// variable is a variable as plan nodes name it, declared once.
func (p *planner) variable(name string) map[string]any {
	id, ok := p.vars[name]
	if !ok {
		id = len(p.vars)
		p.vars[name] = id
		p.plan.Variables = append(p.plan.Variables, map[string]any{"id": id, "name": name, "isDataFromCollection": false, "isFullDocumentFromCollection": false})
	}
	return map[string]any{"id": id, "name": name}
}

func (p *planner) collection(name, access string) {
	if !p.colls[name] {
		p.colls[name] = true
		p.plan.Collections = append(p.plan.Collections, map[string]any{"name": name, "type": access})
	}
}

// ops adds the nodes of operations; known holds the variables bound
// before them (their values unknown: nil).
func (p *planner) ops(ops []Op, known scope) {
	for i, op := range ops {
		switch o := op.(type) {
		case *For:
			coll, isColl := p.collectionOf(o.In, known)
			if !isColl {
				p.node("CalculationNode", nil)
				p.node("EnumerateListNode", map[string]any{"outVariable": p.variable(o.Var)})
				break
			}
			p.collection(coll, "read")
			var plan *indexPlan
			if is, ok := p.src.(IndexedSource); ok && !p.opts.NoIndexes {
				plan = planIndex(is.Indexes(coll), conditions(filtersAhead(ops[i+1:]), o.Var, known))
			}
			if plan == nil {
				p.node("EnumerateCollectionNode", map[string]any{"collection": coll, "outVariable": p.variable(o.Var), "random": false})
				p.plan.EstimatedNrItems = max(p.plan.EstimatedNrItems, 1) * 1000
				break
			}
			ix := plan.index
			p.rules[RuleUseIndexes] = true
			p.node("IndexNode", map[string]any{"collection": coll, "outVariable": p.variable(o.Var),
				"indexes": []map[string]any{{"id": ix.ID, "name": ix.Name, "type": ix.Type, "fields": ix.Fields, "unique": ix.Unique, "sparse": ix.Sparse}}})
		case *Traversal:
			p.node("TraversalNode", map[string]any{"vertexOutVariable": p.variable(o.Vertex)})
		case *ShortestPath:
			p.node("ShortestPathNode", map[string]any{"vertexOutVariable": p.variable(o.Vertex)})
		case *Filter:
			p.node("CalculationNode", nil)
			p.node("FilterNode", nil)
		case *Let:
			p.node("CalculationNode", map[string]any{"outVariable": p.variable(o.Var)})
		case *Sort:
			p.node("SortNode", map[string]any{"elements": len(o.Keys)})
		case *Limit:
			p.node("LimitNode", nil)
		case *Collect:
			p.node("CollectNode", nil)
		case *Return:
			p.node("ReturnNode", nil)
		default:
			name := strings.TrimPrefix(fmt.Sprintf("%T", op), "*aql.")
			p.node(name+"Node", nil)
		}
		for _, v := range boundBy(op) {
			known = known.with(v, nil)
		}
	}
}

// collectionOf tells whether a FOR's operand is a collection, and which.
func (p *planner) collectionOf(in Expr, known scope) (string, bool) {
	switch v := in.(type) {
	case *Var:
		if _, bound := known[v.Name]; !bound {
			return v.Name, true
		}
	case *Bind:
		if v.Collection {
			name, ok := p.binds[v.Name].(string)
			return name, ok
		}
	}
	return "", false
}

// boundBy returns the variables an operation binds.
func boundBy(op Op) []string {
	switch o := op.(type) {
	case *For:
		return []string{o.Var}
	case *Traversal:
		return nonEmpty(o.Vertex, o.Edge, o.Path)
	case *ShortestPath:
		return nonEmpty(o.Vertex, o.Edge)
	case *Let:
		return []string{o.Var}
	case *Collect:
		var out []string
		for _, g := range append(append([]Assign{}, o.Groups...), o.Aggregates...) {
			out = append(out, g.Var)
		}
		return append(out, nonEmpty(o.Into, o.CountInto)...)
	}
	return nil
}

func nonEmpty(names ...string) []string {
	var out []string
	for _, n := range names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}
