package graphstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Errors of changes to a named graph's collections, as ArangoDB's gharial
// reports them.
var (
	ErrVertexNotInGraph     = errors.New("vertex collection does not exist or is not part of the graph") // 1926
	ErrNotOrphan            = errors.New("collection is not in list of orphan collections")              // 1928
	ErrUsedInEdgeDefinition = errors.New("collection already used in edge def")                          // 1929
	ErrUsedInOrphans        = errors.New("collection used in orphans")                                   // 1938
	ErrEdgeDefinitionReused = errors.New("multi use of edge collection in edge def")                     // 1920
	ErrEdgeDefinitionOther  = errors.New("edge collection already used in edge def")                     // 1921
	ErrMalformedDefinition  = errors.New("malformed edge definition")                                    // 1923
	ErrEdgeNotInGraph       = errors.New("edge collection not used in graph")                            // 1930
)

// saveGraph replaces a stored graph definition.
func (s *Store) saveGraph(db string, g *Graph) error {
	if g.OrphanCollections == nil {
		g.OrphanCollections = []string{}
	}
	if g.EdgeDefinitions == nil {
		g.EdgeDefinitions = []EdgeDefinition{}
	}
	doc := map[string]any{"_key": g.Name, "name": g.Name, "edgeDefinitions": g.EdgeDefinitions, "orphanCollections": g.OrphanCollections}
	data, _ := json.Marshal(doc)
	var plain any
	_ = json.Unmarshal(data, &plain)
	res, err := s.Modify(db, GraphsCollection, []any{plain}, true, true, true)
	if err != nil {
		return err
	}
	return res[0].Err
}

// inEdgeDefinitions reports whether coll is an edge, from or to collection
// of one of g's edge definitions.
func (g *Graph) inEdgeDefinitions(coll string) bool {
	for _, d := range g.EdgeDefinitions {
		if d.Collection == coll || slices.Contains(d.From, coll) || slices.Contains(d.To, coll) {
			return true
		}
	}
	return false
}

// usedElsewhere reports whether a graph other than name uses coll.
func (s *Store) usedElsewhere(db, name, coll string) (bool, error) {
	gs, err := s.Graphs(db)
	if err != nil {
		return false, err
	}
	for _, o := range gs {
		if o.Name == name {
			continue
		}
		v, e := o.Collections()
		if slices.Contains(v, coll) || slices.Contains(e, coll) {
			return true, nil
		}
	}
	return false, nil
}

// dropUnused drops the collections that no graph uses any more.
func (s *Store) dropUnused(db, name string, g *Graph, colls []string) error {
	for _, c := range colls {
		if g != nil && (g.inEdgeDefinitions(c) || slices.Contains(g.OrphanCollections, c)) {
			continue
		}
		used, err := s.usedElsewhere(db, name, c)
		if err != nil {
			return err
		}
		if used {
			continue
		}
		if _, err := s.DropCollection(db, c, false); err != nil && !errors.Is(err, ErrCollectionNotFound) {
			return err
		}
	}
	return nil
}

// AddVertexCollection adds coll to a graph's orphan collections, creating
// it as a document collection when missing.
func (s *Store) AddVertexCollection(db, name, coll string) (*Graph, error) {
	s.graphEdits.Lock()
	defer s.graphEdits.Unlock()
	g, err := s.Graph(db, name)
	if err != nil {
		return nil, err
	}
	if !ValidCollectionName(coll) {
		return nil, ErrCollectionName
	}
	if slices.Contains(g.OrphanCollections, coll) {
		return nil, ErrUsedInOrphans
	}
	if g.inEdgeDefinitions(coll) {
		return nil, ErrUsedInEdgeDefinition
	}
	if _, err := s.CreateCollection(db, coll, DocumentCollection, false, false, KeyOptions{AllowUserKeys: true}); err != nil && !errors.Is(err, ErrDuplicateName) {
		return nil, err
	}
	g.OrphanCollections = append(g.OrphanCollections, coll)
	if err := s.saveGraph(db, g); err != nil {
		return nil, err
	}
	return g, nil
}

// RemoveVertexCollection removes an orphan collection from a graph and,
// with drop, drops it when no other graph uses it.
func (s *Store) RemoveVertexCollection(db, name, coll string, drop bool) (*Graph, error) {
	s.graphEdits.Lock()
	defer s.graphEdits.Unlock()
	g, err := s.Graph(db, name)
	if err != nil {
		return nil, err
	}
	i := slices.Index(g.OrphanCollections, coll)
	if i < 0 {
		if g.inEdgeDefinitions(coll) {
			return nil, ErrNotOrphan
		}
		return nil, ErrVertexNotInGraph
	}
	g.OrphanCollections = slices.Delete(g.OrphanCollections, i, i+1)
	if err := s.saveGraph(db, g); err != nil {
		return nil, err
	}
	if drop {
		if err := s.dropUnused(db, name, g, []string{coll}); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// checkDefinition checks an edge definition against the store: a
// collection named, from and to non-empty, the edge collection not a
// document collection, and (unless replacing, which changes it in every
// graph) no other graph defining it differently.
func (s *Store) checkDefinition(db, name string, d EdgeDefinition, replacing bool) error {
	if d.Collection == "" || len(d.From) == 0 || len(d.To) == 0 {
		return ErrMalformedDefinition
	}
	for _, c := range append(append([]string{d.Collection}, d.From...), d.To...) {
		if !ValidCollectionName(c) {
			return ErrCollectionName
		}
	}
	if c, err := s.Collection(db, d.Collection); err == nil && c.Type != EdgeCollection {
		return fmt.Errorf("%w: %s", ErrEdgeCollectionUse, d.Collection)
	}
	if replacing {
		return nil
	}
	gs, err := s.Graphs(db)
	if err != nil {
		return err
	}
	for _, o := range gs {
		if o.Name == name {
			continue
		}
		for _, od := range o.EdgeDefinitions {
			if od.Collection == d.Collection && !(sameSet(od.From, d.From) && sameSet(od.To, d.To)) {
				return ErrEdgeDefinitionOther
			}
		}
	}
	return nil
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// createDefinition creates the missing collections of an edge definition
// and takes its vertex collections out of the graph's orphans.
func (s *Store) createDefinition(db string, g *Graph, d EdgeDefinition) error {
	if _, err := s.CreateCollection(db, d.Collection, EdgeCollection, false, false, KeyOptions{AllowUserKeys: true}); err != nil && !errors.Is(err, ErrDuplicateName) {
		return err
	}
	for _, c := range append(slices.Clone(d.From), d.To...) {
		if _, err := s.CreateCollection(db, c, DocumentCollection, false, false, KeyOptions{AllowUserKeys: true}); err != nil && !errors.Is(err, ErrDuplicateName) {
			return err
		}
		g.OrphanCollections = slices.DeleteFunc(g.OrphanCollections, func(o string) bool { return o == c })
	}
	return nil
}

// AddEdgeDefinition adds an edge definition to a graph, creating its
// missing collections.
func (s *Store) AddEdgeDefinition(db, name string, d EdgeDefinition) (*Graph, error) {
	s.graphEdits.Lock()
	defer s.graphEdits.Unlock()
	g, err := s.Graph(db, name)
	if err != nil {
		return nil, err
	}
	for _, od := range g.EdgeDefinitions {
		if od.Collection == d.Collection {
			return nil, ErrEdgeDefinitionReused
		}
	}
	if err := s.checkDefinition(db, name, d, false); err != nil {
		return nil, err
	}
	if err := s.createDefinition(db, g, d); err != nil {
		return nil, err
	}
	g.EdgeDefinitions = append(g.EdgeDefinitions, d)
	if err := s.saveGraph(db, g); err != nil {
		return nil, err
	}
	return g, nil
}

// orphanize makes the vertex collections of an old definition that the
// graph no longer uses orphans, or with drop, drops those no graph uses.
func (s *Store) orphanize(db string, g *Graph, old []string, drop bool) (dropped []string) {
	for _, c := range old {
		if g.inEdgeDefinitions(c) || slices.Contains(g.OrphanCollections, c) || slices.Contains(dropped, c) {
			continue
		}
		if drop {
			dropped = append(dropped, c)
			continue
		}
		g.OrphanCollections = append(g.OrphanCollections, c)
	}
	return dropped
}

// ReplaceEdgeDefinition replaces the from and to collections of an edge
// definition of graph name, in that graph and in every other graph that
// defines the same edge collection, as ArangoDB does. Vertex collections a
// graph no longer uses become its orphans, or with drop are dropped when
// no graph uses them.
func (s *Store) ReplaceEdgeDefinition(db, name string, d EdgeDefinition, drop bool) (*Graph, error) {
	s.graphEdits.Lock()
	defer s.graphEdits.Unlock()
	g, err := s.Graph(db, name)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(g.EdgeDefinitions, func(od EdgeDefinition) bool { return od.Collection == d.Collection }) {
		return nil, ErrEdgeNotInGraph
	}
	if err := s.checkDefinition(db, name, d, true); err != nil {
		return nil, err
	}
	gs, err := s.Graphs(db)
	if err != nil {
		return nil, err
	}
	var dropped []string
	var mine *Graph
	for _, o := range gs {
		i := slices.IndexFunc(o.EdgeDefinitions, func(od EdgeDefinition) bool { return od.Collection == d.Collection })
		if i < 0 {
			continue
		}
		old := o.EdgeDefinitions[i]
		if err := s.createDefinition(db, o, d); err != nil {
			return nil, err
		}
		o.EdgeDefinitions[i] = d
		for _, c := range s.orphanize(db, o, append(slices.Clone(old.From), old.To...), drop) {
			if !slices.Contains(dropped, c) {
				dropped = append(dropped, c)
			}
		}
		if err := s.saveGraph(db, o); err != nil {
			return nil, err
		}
		if o.Name == name {
			mine = o
		}
	}
	if err := s.dropUnused(db, name, mine, dropped); err != nil {
		return nil, err
	}
	return mine, nil
}

// RemoveEdgeDefinition removes an edge definition from a graph; its vertex
// collections that the graph no longer uses become orphans. With drop, the
// edge collection is dropped when no other graph uses it.
func (s *Store) RemoveEdgeDefinition(db, name, coll string, drop bool) (*Graph, error) {
	s.graphEdits.Lock()
	defer s.graphEdits.Unlock()
	g, err := s.Graph(db, name)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(g.EdgeDefinitions, func(od EdgeDefinition) bool { return od.Collection == coll })
	if i < 0 {
		return nil, ErrEdgeNotInGraph
	}
	old := g.EdgeDefinitions[i]
	g.EdgeDefinitions = slices.Delete(g.EdgeDefinitions, i, i+1)
	s.orphanize(db, g, append(slices.Clone(old.From), old.To...), false)
	if err := s.saveGraph(db, g); err != nil {
		return nil, err
	}
	if drop {
		if err := s.dropUnused(db, name, g, []string{coll}); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// RemoveVertexEdges removes the edges that start or end at the vertex id
// (a document of coll) from the edge collections of every graph that has
// coll as a vertex collection, as ArangoDB's gharial does when a vertex
// is deleted. It returns how many it removed.
func (s *Store) RemoveVertexEdges(db, coll, id string) (int, error) {
	gs, err := s.Graphs(db)
	if err != nil {
		return 0, err
	}
	var edgeColls []string
	for _, g := range gs {
		vertex, edge := g.Collections()
		if !slices.Contains(vertex, coll) {
			continue
		}
		for _, e := range edge {
			if !slices.Contains(edgeColls, e) {
				edgeColls = append(edgeColls, e)
			}
		}
	}
	n := 0
	for _, e := range edgeColls {
		var keys []any
		for _, d := range []Direction{Outbound, Inbound} {
			ks, err := s.Edges(db, e, id, d)
			if errors.Is(err, ErrCollectionNotFound) {
				break
			}
			if err != nil {
				return n, err
			}
			for _, k := range ks {
				if !slices.Contains(keys, any(k)) {
					keys = append(keys, k)
				}
			}
		}
		if len(keys) == 0 {
			continue
		}
		res, err := s.Remove(db, e, keys)
		if err != nil {
			return n, err
		}
		for _, r := range res {
			if r.Err == nil {
				n++
			}
		}
	}
	return n, nil
}
