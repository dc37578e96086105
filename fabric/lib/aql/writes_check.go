package aql

import "fmt"

// The errors of ArangoDB's rules for data-modification queries.
const (
	// ErrMultiModify is ERROR_QUERY_MULTI_MODIFY: two data-modification
	// operations in one query or subquery.
	ErrMultiModify = 1573
	// ErrAccessAfterModification is
	// ERROR_QUERY_ACCESS_AFTER_MODIFICATION: a collection used after an
	// operation of the query modified it.
	ErrAccessAfterModification = 1579
)

// checkWrites enforces, before a query runs, ArangoDB's rules for its
// data-modification operations (as its AST optimizer checks them), in the
// order the query names things, subqueries included:
//
//   - one data-modification operation per query level: a second in the
//     same query or subquery is 1573 (multi-modify query);
//   - a collection is not used after an operation modified it (read by a
//     FOR, named as a value, or modified again): 1579;
//   - an operation does not modify a collection that an outer level of
//     the query already used (a subquery writing what its loop reads):
//     1579;
//   - no traversal or DOCUMENT() follows a data-modification operation:
//     1579.
//
// The names of the query's variables are not collections.
func checkWrites(q *Query, binds map[string]any) error {
	c := &writeCheck{declared: map[string]bool{"OLD": true, "NEW": true, "CURRENT": true},
		firstSeen: map[string]int{}, written: map[string]bool{}, binds: binds}
	if !c.hasModify(q) {
		return nil
	}
	declare(q, c.declared)
	return c.check(q)
}

type writeCheck struct {
	declared  map[string]bool // the query's variables
	level     int             // how deep in subqueries the check is
	firstSeen map[string]int  // the level each collection was first used at
	written   map[string]bool // the collections modified so far
	anyWrite  bool            // whether an operation modified something
	binds     map[string]any
}

// Modifies reports whether the query has a data-modification operation
// (INSERT, UPDATE, REPLACE, REMOVE, UPSERT), at any depth.
func (q *Query) Modifies() bool { return (&writeCheck{}).hasModify(q) }

// hasModify reports whether a query has a data-modification operation.
func (c *writeCheck) hasModify(x any) bool {
	if _, ok := x.(*Modify); ok {
		return true
	}
	if q, ok := x.(*Query); ok {
		for _, op := range q.Ops {
			if c.hasModify(op) {
				return true
			}
		}
		return false
	}
	found := false
	walk(x, func(child any) { found = found || c.hasModify(child) })
	return found
}

// declare finds the names of the variables a query declares.
func declare(x any, out map[string]bool) {
	add := func(names ...string) {
		for _, n := range names {
			if n != "" {
				out[n] = true
			}
		}
	}
	switch v := x.(type) {
	case *Query:
		for _, op := range v.Ops {
			declare(op, out)
		}
		return
	case *For:
		add(v.Var)
	case *Traversal:
		add(v.Vertex, v.Edge, v.Path)
	case *ShortestPath:
		add(v.Vertex, v.Edge)
	case *Let:
		add(v.Var)
	case *Collect:
		for _, a := range append(append([]Assign{}, v.Groups...), v.Aggregates...) {
			add(a.Var)
		}
		add(v.Into, v.CountInto)
	}
	walk(x, func(child any) { declare(child, out) })
}

// check goes through a node's uses of collections and its writes in
// order.
func (c *writeCheck) check(x any) error {
	var err error
	visit := func(children ...Expr) {
		for _, ch := range children {
			if err == nil && ch != nil {
				err = c.check(ch)
			}
		}
	}
	switch v := x.(type) {
	case *Query:
		c.level++
		defer func() { c.level-- }()
		writes := 0
		for _, op := range v.Ops {
			if _, ok := op.(*Modify); ok {
				if writes++; writes > 1 {
					return &QueryError{ErrMultiModify, "AQL: multi-modify query: a query or subquery has one data-modification operation at most (while optimizing ast)"}
				}
			}
			if err := c.check(op); err != nil {
				return err
			}
		}
		return nil
	case *Modify:
		visit(v.Key, v.Filter, v.Doc, v.Update, v.Options)
		if err != nil {
			return err
		}
		name := c.collection(v.Collection)
		if err := c.use(name); err != nil {
			return err
		}
		if c.firstSeen[name] < c.level {
			return accessAfter("collection '" + name + "'")
		}
		c.written[name], c.anyWrite = true, true
		return nil
	case *Var:
		if !c.declared[v.Name] {
			return c.use(v.Name)
		}
		return nil
	case *Bind:
		if v.Collection {
			return c.use(c.collection(v))
		}
		return nil
	case *Traversal, *ShortestPath:
		if c.anyWrite {
			return accessAfter("traversal")
		}
	case *Call:
		if v.Name == "DOCUMENT" && c.anyWrite {
			return accessAfter("function DOCUMENT")
		}
	}
	walk(x, func(child any) {
		if err == nil {
			err = c.check(child)
		}
	})
	return err
}

// use notes a use of a collection: an error after its modification.
func (c *writeCheck) use(name string) error {
	if c.written[name] {
		return accessAfter("collection '" + name + "'")
	}
	if _, ok := c.firstSeen[name]; !ok {
		c.firstSeen[name] = c.level
	}
	return nil
}

// accessAfter is ArangoDB's error 1579 for what came after a
// data-modification operation.
func accessAfter(what string) error {
	return &QueryError{ErrAccessAfterModification, fmt.Sprintf("AQL: access after data-modification by %s (while optimizing ast)", what)}
}

// collection is the name of a collection node.
func (c *writeCheck) collection(x Expr) string {
	switch v := x.(type) {
	case *Var:
		return v.Name
	case *Bind:
		s, _ := c.binds[v.Name].(string)
		return s
	}
	return ""
}
