package aql

import "strings"

// IndexInfo is an index a query may read a collection through. Fields
// are attribute paths ("a.b"); an array field ends in "[*]" ("tags[*]").
type IndexInfo struct {
	ID, Name, Type string
	Fields         []string
	Unique, Sparse bool
}

// Bound is one end of an index range.
type Bound struct {
	Value     any
	Inclusive bool
}

// IndexedSource is a Source whose collections have indexes: a FOR over a
// collection followed by FILTERs on indexed attributes reads only the
// documents the index finds (the FILTERs still run on them).
type IndexedSource interface {
	// Indexes returns the indexes of a collection (the primary index
	// first, of type "primary" on _key; an edge collection's edge index
	// as type "edge" on _from and on _to).
	Indexes(collection string) []IndexInfo
	// IndexScan calls fn with the documents whose values of the index's
	// first fields are eq and, of the next field, between lo and hi
	// (nil: open), until fn returns false.
	IndexScan(collection string, index IndexInfo, eq []any, lo, hi *Bound, fn func(doc map[string]any) bool) error
}

// indexPlan is how a FOR reads its collection through an index: the
// values of the index's first fields (eq), then either a range of the
// next (lo, hi) or a list of its values (in).
type indexPlan struct {
	index  IndexInfo
	eq     []Expr
	in     Expr
	lo, hi *boundExpr
}

type boundExpr struct {
	value     Expr
	inclusive bool
}

// condition is a FILTER conjunct on an attribute of the loop variable:
// path op value, op one of == < <= > >= in (the value a list) and has
// (the value an element of the array at path).
type condition struct {
	path  string
	op    string
	value Expr
}

// conjuncts splits a condition on AND.
func conjuncts(x Expr, out []Expr) []Expr {
	if b, ok := x.(*Binary); ok && (b.Op == "AND" || b.Op == "&&") {
		return conjuncts(b.R, conjuncts(b.L, out))
	}
	return append(out, x)
}

// attrPath returns the attribute path of x when it is v.a.b (or
// v["a"]), on the loop variable v; an expansion v.a[*] gives "a[*]".
func attrPath(x Expr, v string) (string, bool) {
	var parts []string
	suffix := ""
	if ex, ok := x.(*Expand); ok && ex.Then == nil {
		x, suffix = ex.Obj, "[*]"
	}
	for {
		switch n := x.(type) {
		case *Attr:
			parts = append(parts, n.Name)
			x = n.Obj
			continue
		case *Index:
			lit, ok := n.Index.(*Literal)
			if !ok {
				return "", false
			}
			s, isStr := lit.Value.(string)
			if !isStr {
				return "", false
			}
			parts = append(parts, s)
			x = n.Obj
			continue
		case *Var:
			if n.Name != v || len(parts) == 0 {
				return "", false
			}
			for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
				parts[i], parts[j] = parts[j], parts[i]
			}
			return strings.Join(parts, ".") + suffix, true
		}
		return "", false
	}
}

// mirrored is the operator of a comparison with its sides swapped.
var mirrored = map[string]string{"==": "==", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// conditions finds the conjuncts of conds an index may serve: those
// comparing an attribute of v to a value that does not depend on the
// loop's row (it names only variables of the rows before, bound in r).
func conditions(conds []Expr, v string, r scope) []condition {
	var out []condition
	for _, c := range conds {
		for _, x := range conjuncts(c, nil) {
			b, ok := x.(*Binary)
			if !ok {
				continue
			}
			if b.Op == "IN" {
				if p, ok := attrPath(b.L, v); ok && !strings.HasSuffix(p, "[*]") && rowFree(b.R, v, r) {
					out = append(out, condition{p, "in", b.R})
				} else if p, ok := attrPath(b.R, v); ok && rowFree(b.L, v, r) {
					out = append(out, condition{strings.TrimSuffix(p, "[*]") + "[*]", "has", b.L})
				}
				continue
			}
			m, ok := mirrored[b.Op]
			if !ok {
				continue
			}
			if p, ok := attrPath(b.L, v); ok && !strings.HasSuffix(p, "[*]") && rowFree(b.R, v, r) {
				out = append(out, condition{p, b.Op, b.R})
			} else if p, ok := attrPath(b.R, v); ok && !strings.HasSuffix(p, "[*]") && rowFree(b.L, v, r) {
				out = append(out, condition{p, m, b.L})
			}
		}
	}
	return out
}

// rowFree reports whether x can be computed before the loop: it names no
// variable but those bound in r (not v), and holds no subquery.
func rowFree(x Expr, v string, r scope) bool {
	free := true
	var check func(n any)
	check = func(n any) {
		if !free {
			return
		}
		switch t := n.(type) {
		case *Var:
			if _, bound := r[t.Name]; !bound || t.Name == v {
				free = false
			}
			return
		case *Subquery, *Current, *Query:
			free = false
			return
		}
		walk(n, check)
	}
	check(x)
	return free
}

// planIndex chooses the index a FOR over a collection reads through,
// given the FILTERs that follow it; nil when none serves them.
func planIndex(indexes []IndexInfo, conds []condition) *indexPlan {
	var best *indexPlan
	bestScore := 0
	for _, ix := range indexes {
		p, score := matchIndex(ix, conds)
		if p != nil && score > bestScore {
			best, bestScore = p, score
		}
	}
	return best
}

// matchIndex fits conditions to an index's fields: equalities on a prefix
// of them, then a range or a list on the next. The score prefers more
// fields, all of a unique index most.
func matchIndex(ix IndexInfo, conds []condition) (*indexPlan, int) {
	p := &indexPlan{index: ix}
	find := func(path string, ops ...string) *condition {
		for i := range conds {
			c := &conds[i]
			if c.path != path {
				continue
			}
			for _, op := range ops {
				if c.op == op {
					return c
				}
			}
		}
		return nil
	}
	fields := ix.Fields
	single := ix.Type == "primary" || ix.Type == "edge" // equality lookups only
	for _, f := range fields {
		op := "=="
		if strings.HasSuffix(f, "[*]") {
			op = "has"
		}
		c := find(f, op)
		if c == nil {
			break
		}
		p.eq = append(p.eq, c.value)
	}
	score := 10 * len(p.eq)
	if len(p.eq) == len(fields) {
		score += 5
		if ix.Unique {
			score += 100
		}
	} else if !single && !strings.HasSuffix(fields[len(p.eq)], "[*]") {
		f := fields[len(p.eq)]
		if c := find(f, "in"); c != nil {
			p.in = c.value
			score += 8
		} else {
			if c := find(f, ">", ">="); c != nil {
				p.lo = &boundExpr{c.value, c.op == ">="}
				score += 3
			}
			if c := find(f, "<", "<="); c != nil {
				p.hi = &boundExpr{c.value, c.op == "<="}
				score += 3
			}
		}
	} else if single && len(p.eq) == 0 {
		if c := find(fields[0], "in"); c != nil {
			p.in = c.value
			score += 8
		}
	}
	if score == 0 {
		return nil, 0
	}
	if ix.Type == "primary" || ix.Type == "edge" {
		score += 1 // on a tie, the index every lookup has
	}
	return p, score
}

// indexScan reads a collection through plan for the row r, calling fn
// with each document; ok is false when the plan does not apply to the
// row's values (a sparse index and a null), and the caller scans.
func (e *evaluator) indexScan(src IndexedSource, coll string, plan *indexPlan, r scope, fn func(map[string]any) bool) (bool, error) {
	eq := make([]any, len(plan.eq))
	for i, x := range plan.eq {
		v, err := e.eval(x, r)
		if err != nil {
			return false, err
		}
		if v == nil && plan.index.Sparse {
			return false, nil
		}
		eq[i] = v
	}
	bound := func(b *boundExpr) (*Bound, error) {
		if b == nil {
			return nil, nil
		}
		v, err := e.eval(b.value, r)
		if err != nil {
			return nil, err
		}
		return &Bound{v, b.inclusive}, nil
	}
	lo, err := bound(plan.lo)
	if err != nil {
		return false, err
	}
	hi, err := bound(plan.hi)
	if err != nil {
		return false, err
	}
	if plan.index.Sparse && plan.in == nil && len(plan.eq) < len(plan.index.Fields) && (lo == nil || lo.Value == nil) {
		return false, nil // the range reaches null, which the index leaves out
	}
	count := func(d map[string]any) bool {
		e.stats.ScannedIndex++
		return fn(d)
	}
	if plan.in == nil {
		return true, src.IndexScan(coll, plan.index, eq, lo, hi, count)
	}
	v, err := e.eval(plan.in, r)
	if err != nil {
		return false, err
	}
	list, _ := v.([]any)
	seen := map[string]bool{}
	stopped := false
	for _, x := range list {
		if err := e.step(); err != nil { // a lookup per value: the list may be long
			return true, err
		}
		if x == nil && plan.index.Sparse {
			continue
		}
		k := canonicalKey(x)
		if seen[k] {
			continue
		}
		seen[k] = true
		err := src.IndexScan(coll, plan.index, append(eq[:len(eq):len(eq)], x), nil, nil, func(d map[string]any) bool {
			stopped = !count(d)
			return !stopped
		})
		if err != nil || stopped {
			return true, err
		}
	}
	return true, nil
}
