package aql

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// Values are plain: nil, bool, float64, string, []any, map[string]any
// (json.Number from the store becomes float64).

// Source is what a query reads: the documents of a collection.
type Source interface {
	// Scan calls fn with each document of a collection, in key order,
	// until fn returns false; a missing collection is an error.
	Scan(collection string, fn func(doc map[string]any) bool) error
}

// QueryError is an error of running a query, with ArangoDB's number.
type QueryError struct {
	Num int
	Msg string
}

func (e *QueryError) Error() string { return e.Msg }

// Run evaluates a parsed query against src with the bind parameters and
// returns its values, with no limits (see RunWithin).
func Run(q *Query, src Source, binds map[string]any) ([]any, error) {
	return RunWithin(q, src, binds, nil)
}

// RunWithin is Run charging b (nil: unlimited) for every loop's steps, the
// memory the query holds and the size of its result, and stopping when b
// is cancelled. A crossed limit is ArangoDB's error for it (LimitError), a
// cancelled query ERROR_QUERY_KILLED.
func RunWithin(q *Query, src Source, binds map[string]any, b *budget.Budget) ([]any, error) {
	res, _, err := RunStats(q, src, binds, b, Options{})
	return res, err
}

// Stats are what a query did, as ArangoDB reports them in a cursor's
// extra.stats.
type Stats struct {
	// ScannedFull and ScannedIndex count the documents read by full
	// collection scans and through indexes; Filtered the rows FILTERs
	// dropped.
	ScannedFull, ScannedIndex, Filtered int64
	// WritesExecuted counts the documents written (and the inserts that
	// overwriteMode "ignore" left alone: they did not fail).
	WritesExecuted int64
	// WritesIgnored counts the documents that failed under ignoreErrors.
	WritesIgnored int64
	// Rules are the optimizer rules the run applied (RuleUseIndexes).
	Rules []string
}

// killed is the error of a query stopped by its budget or its context.
func killed(err error) error {
	if le := LimitError(err); le != nil {
		return le
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &QueryError{ErrQueryKilled, "query killed: " + err.Error()}
	}
	return err
}

func run(q *Query, src Source, binds map[string]any, b *budget.Budget, opts Options, ws *writeState) ([]any, Stats, error) {
	declared := map[string]bool{}
	collectBinds(q, declared)
	for name := range declared {
		if _, ok := binds[name]; !ok {
			return nil, Stats{}, &QueryError{1551, fmt.Sprintf("no value specified for declared bind parameter '%s'", name)}
		}
	}
	for name := range binds {
		if !declared[name] {
			return nil, Stats{}, &QueryError{1552, fmt.Sprintf("bind parameter '%s' was not declared in the query", name)}
		}
	}
	plain := make(map[string]any, len(binds)) // nothing changes a value in place
	for k, v := range binds {
		plain[k] = normalize(v)
	}
	if err := checkWrites(q, plain); err != nil {
		return nil, Stats{}, err
	}
	e := &evaluator{src: src, binds: plain, b: b, opts: opts, writes: ws}
	res, err := e.query(q, scope{})
	if err != nil {
		return nil, e.stats, err
	}
	// RETURN {b: ..., a: ...}: each result keeps the literal's order.
	if ret, ok := q.Ops[len(q.Ops)-1].(*Return); ok {
		if obj, ok := ret.Value.(*Object); ok {
			for i, r := range res {
				if m, ok := r.(map[string]any); ok {
					res[i] = orderedAs(obj, m)
				}
			}
		}
	}
	return res, e.stats, nil
}

// collectBinds finds the bind parameters a query uses.
func collectBinds(x any, out map[string]bool) {
	switch v := x.(type) {
	case *Bind:
		out[v.Name] = true
		return
	case *Query:
		for _, op := range v.Ops {
			collectBinds(op, out)
		}
		return
	}
	walk(x, func(child any) { collectBinds(child, out) })
}

// walk calls fn with each child of a node.
func walk(x any, fn func(any)) {
	call := func(es ...Expr) {
		for _, e := range es {
			if e != nil {
				fn(e)
			}
		}
	}
	switch v := x.(type) {
	case *For:
		call(v.In)
	case *Traversal:
		call(v.Min, v.Max, v.Start, v.Graph, v.Prune, v.Options)
		for _, e := range v.Edges {
			call(e.Name)
		}
	case *ShortestPath:
		call(v.Start, v.Target, v.Graph, v.Options)
		for _, e := range v.Edges {
			call(e.Name)
		}
	case *Filter:
		call(v.Cond)
	case *Let:
		call(v.Value)
	case *Sort:
		for _, k := range v.Keys {
			call(k.Value)
		}
	case *Limit:
		call(v.Offset, v.Count)
	case *Collect:
		for _, a := range append(append([]Assign{}, v.Groups...), v.Aggregates...) {
			call(a.Value)
		}
		call(v.IntoValue, v.Options)
	case *Return:
		call(v.Value)
	case *Modify:
		call(v.Key, v.Filter, v.Doc, v.Update, v.Collection, v.Options)
	case *Attr:
		call(v.Obj)
	case *Index:
		call(v.Obj, v.Index)
	case *Expand:
		call(v.Obj, v.Then)
	case *Call:
		call(v.Args...)
	case *Unary:
		call(v.X)
	case *Binary:
		call(v.L, v.R)
	case *Ternary:
		call(v.Cond, v.Then, v.Else)
	case *Array:
		call(v.Elems...)
	case *Object:
		for _, f := range v.Fields {
			call(f.Computed, f.Value)
		}
	case *Subquery:
		fn(v.Query)
	}
}

// scope holds the variables of a row.
type scope map[string]any

func (s scope) with(name string, v any) scope {
	out := make(scope, len(s)+1)
	for k, x := range s {
		out[k] = x
	}
	out[name] = v
	return out
}

type evaluator struct {
	b      *budget.Budget // the query's account (nil: unlimited)
	level  int            // how deep in subqueries (0: the query itself)
	src    Source
	binds  map[string]any
	graphs map[string][]string // a named graph's edge collections, read once
	colls  map[string][]any    // a collection named as a value, read once
	stats  Stats
	opts   Options
	writes *writeState // what the data-modification operations did
}

// query runs the operations over rows, starting from one row.
//
// The rows of each stage are charged to the budget as they are made; when
// a stage replaces them, the rows before it are returned (a FILTER, SORT
// or LIMIT keeps its share of them).
func (e *evaluator) query(q *Query, outer scope) ([]any, error) {
	e.level++
	defer func() { e.level-- }()
	rows := []scope{outer}
	var stage int64 // the bytes charged for rows
	defer func() { e.shrink(stage) }()
	for i := 0; i < len(q.Ops); i++ {
		var err error
		before, in := e.held(), len(rows)
		keeps := false // the stage's rows are a part of the rows before it
		switch o := q.Ops[i].(type) {
		case *For:
			if res, ok, err := e.streamFor(o, q.Ops[i+1:], rows); ok {
				return res, err
			}
			if n, stop := e.limitAhead(q.Ops[i+1:]); stop >= 0 {
				// FOR, FILTERs and LETs, then LIMIT: the scan stops once
				// the LIMIT has its rows, the FILTERs and LETs applied as
				// it goes.
				rows, err = e.forOp(o, rows, q.Ops[i+1:i+1+n], stop, filtersAhead(q.Ops[i+1:]))
				i += n
				break
			}
			rows, err = e.forOp(o, rows, nil, -1, filtersAhead(q.Ops[i+1:]))
		case *Traversal:
			rows, err = e.traverse(o, rows)
		case *ShortestPath:
			rows, err = e.shortestPath(o, rows)
		case *Filter, *Let:
			_, keeps = o.(*Filter)
			var kept []scope
			for _, r := range rows {
				if err := e.step(); err != nil {
					return nil, err
				}
				r, ok, err := e.inline(o, r)
				if err != nil {
					return nil, err
				}
				if ok {
					kept = append(kept, r)
				} else {
					e.stats.Filtered++
				}
			}
			rows = kept
		case *Sort:
			keeps = true
			rows, err = e.sortOp(o, rows)
		case *Limit:
			keeps = true
			rows, err = e.limitOp(o, rows)
		case *Collect:
			rows, err = e.collectOp(o, rows)
		case *Return:
			return e.returnOp(o, rows)
		case *Modify:
			rows, err = e.modifyOp(o, rows)
		default:
			return nil, &QueryError{1540, fmt.Sprintf("%T is not supported yet", q.Ops[i])}
		}
		made := e.held() - before
		kept := int64(0)
		if keeps && in > 0 {
			kept = int64(float64(stage) * float64(len(rows)) / float64(in))
		}
		e.shrink(stage - kept)
		stage = kept + made
		if err != nil {
			return nil, err
		}
	}
	if endsWithModify(q) {
		return []any{}, nil // a query ending with a write returns nothing
	}
	return nil, &QueryError{1501, "a query ends with RETURN"}
}

// inline applies a FILTER (ok false: the row is dropped) or a LET to a
// row.
func (e *evaluator) inline(op Op, r scope) (scope, bool, error) {
	switch o := op.(type) {
	case *Filter:
		v, err := e.eval(o.Cond, r)
		return r, err == nil && truthy(v), err
	case *Let:
		v, err := e.eval(o.Value, r)
		if err != nil {
			return r, false, err
		}
		if err := e.grow(mapCost(len(r) + 1)); err != nil {
			return r, false, err
		}
		return r.with(o.Var, v), true, nil
	}
	return r, true, nil
}

// limitAhead looks at the operations after a FOR: FILTERs and LETs, then
// a LIMIT of constant bounds. It returns how many FILTERs and LETs there
// are and how many rows the LIMIT needs (offset + count), or -1 when the
// operations are not of that shape.
func (e *evaluator) limitAhead(ops []Op) (int, int) {
	for n, op := range ops {
		switch o := op.(type) {
		case *Filter, *Let:
			continue
		case *Limit:
			off, count, err := e.limitBounds(o)
			if err != nil || o.full != nil { // a counting LIMIT reads all rows
				return 0, -1 // limitOp reports it
			}
			return n, off + count
		}
		return 0, -1
	}
	return 0, -1
}

// filtersAhead returns the conditions of the FILTERs among the FILTERs
// and LETs that follow a FOR: what an index may serve.
func filtersAhead(ops []Op) []Expr {
	var conds []Expr
	for _, op := range ops {
		switch o := op.(type) {
		case *Filter:
			conds = append(conds, o.Cond)
		case *Let:
		default:
			return conds
		}
	}
	return conds
}

// forOp iterates each row over a collection, an array or a range. Each
// new row goes through then (FILTERs and LETs); with stop >= 0 the
// iteration ends once stop rows are out. conds are the FILTERs after the
// FOR, which an index of a collection may serve.
func (e *evaluator) forOp(o *For, rows []scope, then []Op, stop int, conds []Expr) ([]scope, error) {
	var out []scope
	var ferr error
	// add takes a new row through then; it reports whether to go on.
	add := func(r scope) bool {
		if ferr = e.step(); ferr != nil {
			return false
		}
		if ferr = e.grow(mapCost(len(r)) + ifaceSize); ferr != nil {
			return false
		}
		for _, op := range then {
			var ok bool
			if r, ok, ferr = e.inline(op, r); !ok {
				if ferr == nil {
					e.stats.Filtered++
				}
				return ferr == nil
			}
		}
		out = append(out, r)
		return stop < 0 || len(out) < stop
	}
	scan := func(r scope, coll string) error {
		if stop == 0 {
			return nil
		}
		each := func(doc map[string]any) bool {
			d := normalize(doc)
			if ferr = e.grow(sizeOf(d)); ferr != nil {
				return false
			}
			return add(r.with(o.Var, d))
		}
		if is, ok := e.src.(IndexedSource); ok && len(conds) > 0 && !e.opts.NoIndexes {
			if plan := planIndex(is.Indexes(coll), conditions(conds, o.Var, r)); plan != nil {
				used, err := e.indexScan(is, coll, plan, r, each)
				if used && len(e.stats.Rules) == 0 {
					e.stats.Rules = []string{RuleUseIndexes}
				}
				if err == nil {
					err = ferr
				}
				if used || err != nil {
					return err
				}
			}
		}
		err := e.src.Scan(coll, func(doc map[string]any) bool {
			e.stats.ScannedFull++
			return each(doc)
		})
		if err == nil {
			err = ferr
		}
		return err
	}
	for _, r := range rows {
		if stop >= 0 && len(out) >= stop {
			break
		}
		if v, ok := o.In.(*Var); ok {
			if _, bound := r[v.Name]; !bound {
				if err := scan(r, v.Name); err != nil {
					return nil, err
				}
				continue
			}
		}
		if b, ok := o.In.(*Bind); ok && b.Collection {
			name, _ := e.binds[b.Name].(string)
			if err := scan(r, name); err != nil {
				return nil, err
			}
			continue
		}
		held := e.held()
		v, err := e.eval(o.In, r)
		if err != nil {
			return nil, err
		}
		temporary := e.held() - held // a list made for the loop, dropped after it
		list, ok := v.([]any)
		if !ok {
			if v == nil {
				continue
			}
			return nil, &QueryError{1563, "invalid argument type in call to FOR: an array or a collection is needed"}
		}
		for _, x := range list {
			if !add(r.with(o.Var, x)) {
				break
			}
		}
		if _, sub := o.In.(*Subquery); !sub { // a subquery's values live on in the rows
			e.shrink(temporary)
		}
		if ferr != nil {
			return nil, ferr
		}
	}
	return out, nil
}

func (e *evaluator) sortOp(o *Sort, rows []scope) ([]scope, error) {
	keys := make([][]any, len(rows))
	held := e.held()
	defer func() { e.shrink(e.held() - held) }() // the keys are dropped after the sort
	if err := e.grow(listCost(len(rows)) * 2); err != nil {
		return nil, err
	}
	for i, r := range rows {
		if err := e.step(); err != nil {
			return nil, err
		}
		if err := e.grow(listCost(len(o.Keys))); err != nil {
			return nil, err
		}
		for _, k := range o.Keys {
			v, err := e.eval(k.Value, r)
			if err != nil {
				return nil, err
			}
			keys[i] = append(keys[i], v)
		}
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for j, k := range o.Keys {
			c := compare(keys[idx[a]][j], keys[idx[b]][j])
			if c != 0 {
				return (c < 0) != k.Desc
			}
		}
		return false
	})
	out := make([]scope, len(rows))
	for i, j := range idx {
		out[i] = rows[j]
	}
	return out, nil
}

func (e *evaluator) limitOp(o *Limit, rows []scope) ([]scope, error) {
	off, n, err := e.limitBounds(o)
	if err != nil {
		return nil, err
	}
	o.full.reached(len(rows))
	if off >= len(rows) {
		return nil, nil
	}
	return rows[off:min(len(rows), off+n)], nil
}

// limitBounds evaluates a LIMIT's offset and count (constants: they see
// no row).
func (e *evaluator) limitBounds(o *Limit) (off, count int, err error) {
	num := func(x Expr) (int, error) {
		if x == nil {
			return 0, nil
		}
		v, err := e.eval(x, scope{})
		if err != nil {
			return 0, err
		}
		f, ok := v.(float64)
		if !ok || f < 0 {
			return 0, &QueryError{1520, "LIMIT needs a number that is not negative"}
		}
		return int(f), nil
	}
	if off, err = num(o.Offset); err == nil {
		count, err = num(o.Count)
	}
	return off, count, err
}

func (e *evaluator) returnOp(o *Return, rows []scope) ([]any, error) {
	if err := e.grow(listCost(len(rows))); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(rows))
	seen := map[string]bool{}
	for _, r := range rows {
		if err := e.step(); err != nil {
			return nil, err
		}
		held := e.held()
		v, err := e.eval(o.Value, r)
		if err != nil {
			return nil, err
		}
		if o.Distinct {
			k := canonicalKey(v)
			if seen[k] {
				continue
			}
			if err := e.grow(stringHead + int64(len(k)) + ifaceSize); err != nil {
				return nil, err
			}
			seen[k] = true
		}
		// A value is held by the result: what it refers to as well as
		// what it made (charged in eval).
		size := sizeOf(v)
		if err := e.grow(size - (e.held() - held)); err != nil {
			return nil, err
		}
		if e.level == 1 {
			if err := e.b.AddResult(size); err != nil {
				return nil, err
			}
		}
		out = append(out, v)
	}
	return out, nil
}
