package aql

// The operations of a query as the parser reads them: FOR (over
// collections, ranges, traversals and shortest paths) and COLLECT.

// forOp reads what follows FOR: a plain iteration, a traversal or a
// shortest path.
func (p *parser) forOp() (Op, error) {
	var vars []string
	for {
		v, err := p.name()
		if err != nil {
			return nil, err
		}
		vars = append(vars, v)
		if !p.accept(",") {
			break
		}
	}
	if err := p.expect("IN"); err != nil {
		return nil, err
	}
	if p.isDirection() && p.toks[p.pos+1].Text == "SHORTEST_PATH" {
		return p.shortestPath(vars)
	}
	if p.isDirection() {
		return p.traversal(vars, &Literal{Value: int64(1)}) // no depth: 1..1
	}
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.isDirection() {
		return p.traversal(vars, first)
	}
	if len(vars) != 1 {
		return nil, p.unexpected(p.peek())
	}
	f := &For{Var: vars[0], In: first}
	if p.accept("OPTIONS") {
		if _, err := p.expr(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// isDirection reports whether the next token is OUTBOUND, INBOUND or ANY.
func (p *parser) isDirection() bool {
	t := p.peek()
	return t.Kind == Keyword && (t.Text == "OUTBOUND" || t.Text == "INBOUND" || t.Text == "ANY")
}

// traversal reads [min..max] DIR start GRAPH g | collections [PRUNE] [OPTIONS].
func (p *parser) traversal(vars []string, depth Expr) (Op, error) {
	if len(vars) > 3 {
		return nil, p.unexpected(p.peek())
	}
	tr := &Traversal{Vertex: vars[0], Min: &Literal{Value: int64(1)}, Max: &Literal{Value: int64(1)}}
	if len(vars) > 1 {
		tr.Edge = vars[1]
	}
	if len(vars) > 2 {
		tr.Path = vars[2]
	}
	if r, ok := depth.(*Binary); ok && r.Op == ".." {
		tr.Min, tr.Max = r.L, r.R
	} else {
		tr.Min, tr.Max = depth, depth
	}
	tr.Direction = p.next().Text
	start, err := p.expr()
	if err != nil {
		return nil, err
	}
	tr.Start = start
	if tr.Graph, tr.Edges, err = p.graphOrEdges(); err != nil {
		return nil, err
	}
	if p.accept("PRUNE") {
		if tr.Prune, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if p.accept("OPTIONS") {
		if tr.Options, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// shortestPath reads DIR SHORTEST_PATH start TO target GRAPH g | collections [OPTIONS].
func (p *parser) shortestPath(vars []string) (Op, error) {
	if len(vars) > 2 {
		return nil, p.unexpected(p.peek())
	}
	sp := &ShortestPath{Vertex: vars[0], Direction: p.next().Text}
	if len(vars) > 1 {
		sp.Edge = vars[1]
	}
	p.next() // SHORTEST_PATH
	var err error
	if sp.Start, err = p.expr(); err != nil {
		return nil, err
	}
	if err := p.expect("TO"); err != nil {
		return nil, err
	}
	if sp.Target, err = p.expr(); err != nil {
		return nil, err
	}
	if sp.Graph, sp.Edges, err = p.graphOrEdges(); err != nil {
		return nil, err
	}
	if p.accept("OPTIONS") {
		if sp.Options, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// graphOrEdges reads GRAPH name, or a list of edge collections each with
// an optional direction.
func (p *parser) graphOrEdges() (Expr, []EdgeCollection, error) {
	if p.accept("GRAPH") {
		g, err := p.primary()
		return g, nil, err
	}
	var edges []EdgeCollection
	for {
		var e EdgeCollection
		if p.isDirection() {
			e.Direction = p.next().Text
		}
		name, err := p.primary()
		if err != nil {
			return nil, nil, err
		}
		e.Name = name
		edges = append(edges, e)
		if !p.accept(",") {
			return nil, edges, nil
		}
	}
}

// collect reads what follows COLLECT.
func (p *parser) collect() (Op, error) {
	c := &Collect{}
	assigns := func() ([]Assign, error) {
		var out []Assign
		for {
			v, err := p.name()
			if err != nil {
				return nil, err
			}
			if err := p.expect("="); err != nil {
				return nil, err
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			out = append(out, Assign{Var: v, Value: e})
			if !p.accept(",") {
				return out, nil
			}
		}
	}
	var err error
	if t := p.peek(); t.Kind == Ident {
		if c.Groups, err = assigns(); err != nil {
			return nil, err
		}
	}
	if p.accept("AGGREGATE") {
		if c.Aggregates, err = assigns(); err != nil {
			return nil, err
		}
	}
	if p.accept("INTO") {
		if c.Into, err = p.name(); err != nil {
			return nil, err
		}
		if p.accept("=") {
			if c.IntoValue, err = p.expr(); err != nil {
				return nil, err
			}
		} else if p.accept("KEEP") {
			for {
				v, err := p.name()
				if err != nil {
					return nil, err
				}
				c.Keep = append(c.Keep, v)
				if !p.accept(",") {
					break
				}
			}
		}
	}
	if p.accept("WITH") {
		if err := p.expect("COUNT"); err != nil {
			return nil, err
		}
		if err := p.expect("INTO"); err != nil {
			return nil, err
		}
		if c.CountInto, err = p.name(); err != nil {
			return nil, err
		}
	}
	if p.accept("OPTIONS") {
		if c.Options, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Expressions, lowest precedence first.
