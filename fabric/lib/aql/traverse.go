package aql

import (
	"strings"
)

// GraphSource is a Source that can also follow edges: what traversals
// and shortest paths read.
type GraphSource interface {
	Source
	// Edges returns the edges of a vertex (its _id) in an edge
	// collection: out of it (OUTBOUND), into it (INBOUND) or both (ANY).
	Edges(collection, vertex, direction string) ([]map[string]any, error)
	// Vertex returns the document of an _id, or nil when there is none.
	Vertex(id string) (map[string]any, error)
	// GraphEdges returns the edge collections of a named graph.
	GraphEdges(graph string) ([]string, error)
}

// NeighborSource is a GraphSource that can also list a vertex's edges
// from an index: each edge's _id and its other end. A traversal that
// does not look at its edges (no edge or path variable) uses it and reads
// no edge document.
type NeighborSource interface {
	GraphSource
	Neighbors(collection, vertex, direction string) ([]Neighbor, error)
}

// Neighbor is an edge (its _id) and the vertex at its other end.
type Neighbor struct {
	EdgeID, Other string
}

// step is an edge collection and the direction to follow it.
type step struct{ coll, dir string }

// steps resolves a traversal's edge collections.
func (e *evaluator) steps(gs GraphSource, graph Expr, edges []EdgeCollection, dir string, s scope) ([]step, error) {
	if graph != nil {
		g, err := e.eval(graph, s)
		if err != nil {
			return nil, err
		}
		name := toString(g)
		colls, ok := e.graphs[name]
		if !ok { // read once per query, not once per row
			if colls, err = gs.GraphEdges(name); err != nil {
				return nil, err
			}
			if e.graphs == nil {
				e.graphs = map[string][]string{}
			}
			e.graphs[name] = colls
		}
		var out []step
		for _, c := range colls {
			out = append(out, step{c, dir})
		}
		return out, nil
	}
	var out []step
	for _, ec := range edges {
		var name string
		if v, ok := ec.Name.(*Var); ok {
			name = v.Name
		} else {
			n, err := e.eval(ec.Name, s)
			if err != nil {
				return nil, err
			}
			name = toString(n)
		}
		d := ec.Direction
		if d == "" {
			d = dir
		}
		out = append(out, step{name, d})
	}
	return out, nil
}

// startID reads a traversal's start: an _id, or a document with one.
func startID(v any) string {
	if m, ok := v.(map[string]any); ok {
		id, _ := m["_id"].(string)
		return id
	}
	s, _ := v.(string)
	return s
}

// traverse runs a traversal for each row: depth-first, edges unique on a
// path (ArangoDB's defaults), vertices unique on a path or globally when
// OPTIONS say so; PRUNE stops going deeper from a vertex it holds for.
func (e *evaluator) traverse(o *Traversal, rows []scope) ([]scope, error) {
	gs, ok := e.src.(GraphSource)
	if !ok {
		return nil, &QueryError{1540, "this store cannot traverse"}
	}
	var out []scope
	for _, r := range rows {
		lo, err := e.eval(o.Min, r)
		if err != nil {
			return nil, err
		}
		hi, err := e.eval(o.Max, r)
		if err != nil {
			return nil, err
		}
		minDepth, maxDepth := int(number(lo)), int(number(hi))
		steps, err := e.steps(gs, o.Graph, o.Edges, o.Direction, r)
		if err != nil {
			return nil, err
		}
		sv, err := e.eval(o.Start, r)
		if err != nil {
			return nil, err
		}
		start, err := vertex(gs, startID(sv))
		if err != nil || start == nil {
			if err != nil {
				return nil, err
			}
			continue // ArangoDB: a missing start vertex yields nothing
		}
		uniqueVertices, bfs := "none", false
		if o.Options != nil {
			opts, err := e.eval(o.Options, r)
			if err != nil {
				return nil, err
			}
			if m, ok := opts.(map[string]any); ok {
				if u, ok := m["uniqueVertices"].(string); ok {
					uniqueVertices = u
				}
				bfs = m["order"] == "bfs" || m["bfs"] == true
			}
		}
		visited := map[string]bool{startID(start): true}
		// emit adds the row of a path's last vertex and says whether to go
		// deeper from it.
		emit := func(vs, es []any) (bool, error) {
			if err := e.step(); err != nil {
				return false, err
			}
			depth := len(es)
			v := vs[len(vs)-1].(map[string]any)
			row := r.with(o.Vertex, v)
			if o.Edge != "" {
				var last any
				if len(es) > 0 {
					last = es[len(es)-1]
				}
				row = row.with(o.Edge, last)
			}
			if o.Path != "" {
				row = row.with(o.Path, map[string]any{"vertices": append([]any(nil), vs...), "edges": append([]any(nil), es...)})
			}
			if depth >= minDepth {
				cost := mapCost(len(row)) + sizeOf(v) + ifaceSize
				if o.Path != "" {
					cost += mapCost(2) + listCost(len(vs)) + listCost(len(es))
				}
				if err := e.grow(cost); err != nil {
					return false, err
				}
				out = append(out, row)
			}
			if depth >= maxDepth {
				return false, nil
			}
			if o.Prune != nil {
				p, err := e.eval(o.Prune, row)
				if err != nil || truthy(p) {
					return false, err
				}
			}
			return true, nil
		}
		// next calls fn with each step out of a path's last vertex that
		// the uniqueness rules allow, at the time of the call.
		needDocs := o.Edge != "" || o.Path != ""
		next := func(vs, es []any, fn func(nv map[string]any, edge any) error) error {
			id, _ := vs[len(vs)-1].(map[string]any)["_id"].(string)
			for _, st := range steps {
				edges, err := hops(gs, st, id, needDocs)
				if err != nil {
					return err
				}
				for _, edge := range edges {
					if err := e.step(); err != nil {
						return err
					}
					if onPath(es, edge) {
						continue
					}
					to := other(edge, id)
					if uniqueVertices == "path" && onPathVertex(vs, to) || uniqueVertices == "global" && visited[to] {
						continue
					}
					nv, err := vertex(gs, to)
					if err != nil {
						return err
					}
					if nv == nil {
						continue
					}
					if !visited[to] {
						if err := e.grow(stringHead + int64(len(to)) + mapGroup/8); err != nil {
							return err
						}
					}
					visited[to] = true
					if err := fn(nv, edge); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if bfs {
			type item struct{ vs, es []any }
			queue := []item{{vs: []any{start}}}
			for len(queue) > 0 {
				it := queue[0]
				queue = queue[1:]
				deeper, err := emit(it.vs, it.es)
				if err != nil {
					return nil, err
				}
				if !deeper {
					continue
				}
				err = next(it.vs, it.es, func(nv map[string]any, edge any) error {
					if err := e.grow(listCost(len(it.vs)+1)*2 + sizeOf(nv)); err != nil {
						return err
					}
					vs := append(append(make([]any, 0, len(it.vs)+1), it.vs...), nv)
					es := append(append(make([]any, 0, len(it.es)+1), it.es...), edge)
					queue = append(queue, item{vs, es})
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
			continue
		}
		// Each level of the walk holds a few frames of the goroutine's
		// stack, charged as memory while it is held: a chain of a million
		// edges stops at the query's memory limit, not at the end of the
		// process's stack.
		var dfs func(vs, es []any) error
		dfs = func(vs, es []any) error {
			if err := e.grow(stackPerLevel); err != nil {
				return err
			}
			defer e.shrink(stackPerLevel)
			deeper, err := emit(vs, es)
			if err != nil || !deeper {
				return err
			}
			return next(vs, es, func(nv map[string]any, edge any) error {
				return dfs(append(vs, nv), append(es, edge))
			})
		}
		if err := dfs([]any{start}, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stackPerLevel is what one level of a depth-first traversal holds of
// the stack (three frames: the walk, the neighbours' loop, the step),
// rounded up.
const stackPerLevel = 2048

// vertex reads a vertex as plain values (nil when missing).
func vertex(gs GraphSource, id string) (map[string]any, error) {
	v, err := gs.Vertex(id)
	if err != nil || v == nil {
		return nil, err
	}
	return normalize(v).(map[string]any), nil
}

// hops reads a vertex's edges of a step: their documents when the query
// looks at them (needDocs), else, when the source has an index of them,
// stubs of _id, _from and _to (enough for uniqueness and direction).
func hops(gs GraphSource, st step, id string, needDocs bool) ([]map[string]any, error) {
	if ns, ok := gs.(NeighborSource); ok && !needDocs {
		return neighborEdges(ns, st, id)
	}
	return edgesOf(gs, st, id)
}

// edgesOf reads a vertex's edges of a step as plain values.
func edgesOf(gs GraphSource, st step, id string) ([]map[string]any, error) {
	edges, err := gs.Edges(st.coll, id, st.dir)
	if err != nil {
		return nil, err
	}
	for i, e := range edges {
		edges[i] = normalize(e).(map[string]any)
	}
	return edges, nil
}

// neighborEdges lists a vertex's edges of a step from the index, as stubs.
func neighborEdges(ns NeighborSource, st step, id string) ([]map[string]any, error) {
	ns2, err := ns.Neighbors(st.coll, id, st.dir)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(ns2))
	for i, n := range ns2 {
		out[i] = map[string]any{"_id": n.EdgeID, "_from": id, "_to": n.Other}
	}
	return out, nil
}

// other is the end of an edge that is not id (for ANY and INBOUND).
func other(edge map[string]any, id string) string {
	from, _ := edge["_from"].(string)
	to, _ := edge["_to"].(string)
	if from == id {
		return to
	}
	return from
}

func onPath(es []any, edge map[string]any) bool {
	for _, x := range es {
		if x.(map[string]any)["_id"] == edge["_id"] {
			return true
		}
	}
	return false
}

func onPathVertex(vs []any, id string) bool {
	for _, x := range vs {
		if x.(map[string]any)["_id"] == id {
			return true
		}
	}
	return false
}

// shortestPath finds one shortest path (fewest edges) breadth-first and
// yields its vertices, each with the edge that led to it.
func (e *evaluator) shortestPath(o *ShortestPath, rows []scope) ([]scope, error) {
	gs, ok := e.src.(GraphSource)
	if !ok {
		return nil, &QueryError{1540, "this store cannot traverse"}
	}
	var out []scope
	for _, r := range rows {
		steps, err := e.steps(gs, o.Graph, o.Edges, o.Direction, r)
		if err != nil {
			return nil, err
		}
		sv, err := e.eval(o.Start, r)
		if err != nil {
			return nil, err
		}
		tv, err := e.eval(o.Target, r)
		if err != nil {
			return nil, err
		}
		from, to := startID(sv), startID(tv)
		if from == "" || to == "" || !strings.Contains(from, "/") {
			continue
		}
		prev := map[string]map[string]any{from: nil} // vertex -> the edge that reached it
		queue := []string{from}
		found := from == to
		for len(queue) > 0 && !found {
			id := queue[0]
			queue = queue[1:]
			for _, st := range steps {
				edges, err := hops(gs, st, id, o.Edge != "")
				if err != nil {
					return nil, err
				}
				for _, edge := range edges {
					if err := e.step(); err != nil {
						return nil, err
					}
					next := other(edge, id)
					if _, seen := prev[next]; seen {
						continue
					}
					if err := e.grow(stringHead + int64(len(next)) + sizeOf(edge) + ifaceSize); err != nil {
						return nil, err
					}
					prev[next] = edge
					if next == to {
						found = true
						break
					}
					queue = append(queue, next)
				}
				if found {
					break
				}
			}
		}
		if !found {
			continue
		}
		var ids []string
		var edges []map[string]any
		for id := to; ; {
			ids = append([]string{id}, ids...)
			edge := prev[id]
			edges = append([]map[string]any{edge}, edges...)
			if edge == nil {
				break
			}
			id = other(edge, id)
		}
		for i, id := range ids {
			if err := e.grow(mapCost(len(r) + 2)); err != nil {
				return nil, err
			}
			v, err := vertex(gs, id)
			if err != nil {
				return nil, err
			}
			row := r.with(o.Vertex, v)
			if o.Edge != "" {
				var edge any
				if edges[i] != nil {
					edge = edges[i]
				}
				row = row.with(o.Edge, edge)
			}
			out = append(out, row)
		}
	}
	return out, nil
}
