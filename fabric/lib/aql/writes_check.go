package aql

import "fmt"

// The errors of ArangoDB's rules for data-modification queries.
const (
	// ErrMultiModify is ERROR_QUERY_MULTI_MODIFY: a collection modified
	// by more than one operation of a query.
	ErrMultiModify = 1573
	// ErrAccessAfterModification is
	// ERROR_QUERY_ACCESS_AFTER_MODIFICATION: a collection read after an
	// operation of the query modified it.
	ErrAccessAfterModification = 1579
)

// checkWrites enforces, before a query runs, ArangoDB's rules for its
// data-modification operations: a collection is modified by one
// operation at most, and not read after it (by a FOR, or as a value),
// nor is any traversal or DOCUMENT() made after a modification, in the
// order the operations come, subqueries included. The names of
// the query's variables are not collections.
func checkWrites(q *Query, binds map[string]any) error {
	c := &writeCheck{declared: map[string]bool{"OLD": true, "NEW": true, "CURRENT": true}, modified: map[string]WriteKind{}, binds: binds}
	if !c.hasModify(q) {
		return nil
	}
	declare(q, c.declared)
	return c.check(q)
}

type writeCheck struct {
	declared map[string]bool      // the query's variables
	modified map[string]WriteKind // the collections modified so far
	binds    map[string]any
}

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

// check goes through a node's reads and writes in order.
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
		for _, op := range v.Ops {
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
		if _, twice := c.modified[name]; twice {
			return &QueryError{ErrMultiModify, fmt.Sprintf("AQL: multi-modify query: collection '%s' is modified by more than one operation (while parsing)", name)}
		}
		c.modified[name] = v.Kind
		return nil
	case *Var:
		if !c.declared[v.Name] {
			return c.read(v.Name)
		}
		return nil
	case *Bind:
		if v.Collection {
			return c.read(c.collection(v))
		}
		return nil
	case *Traversal, *ShortestPath:
		if err := c.readAny("a traversal"); err != nil {
			return err
		}
	case *Call:
		if v.Name == "DOCUMENT" {
			if err := c.readAny("DOCUMENT()"); err != nil {
				return err
			}
		}
	}
	walk(x, func(child any) {
		if err == nil {
			err = c.check(child)
		}
	})
	return err
}

// read is the error of reading a collection after its modification.
func (c *writeCheck) read(name string) error {
	if kind, ok := c.modified[name]; ok {
		return &QueryError{ErrAccessAfterModification, fmt.Sprintf("AQL: access after data-modification by %s of collection '%s' (while parsing)", kind, name)}
	}
	return nil
}

// readAny is the error of a read that may reach any collection (a
// traversal, DOCUMENT()) after a modification.
func (c *writeCheck) readAny(what string) error {
	for name, kind := range c.modified {
		return &QueryError{ErrAccessAfterModification, fmt.Sprintf("AQL: access after data-modification by %s of collection '%s': %s cannot follow a data-modification operation (while parsing)", kind, name, what)}
	}
	return nil
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
