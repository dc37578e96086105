package graphstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// Errors of graphs.
var (
	ErrGraphNotFound     = errors.New("graph not found")
	ErrGraphExists       = errors.New("graph already exists")
	ErrEdgeCollectionUse = errors.New("not an edge collection")
)

// GraphsCollection is the system collection that holds a database's
// graph definitions, keyed by graph name.
const GraphsCollection = "_graphs"

// EdgeDefinition is an edge collection of a graph and the vertex
// collections its edges go from and to.
type EdgeDefinition struct {
	Collection string   `json:"collection"`
	From       []string `json:"from"`
	To         []string `json:"to"`
}

// Graph is a named graph.
type Graph struct {
	Name              string           `json:"name"`
	EdgeDefinitions   []EdgeDefinition `json:"edgeDefinitions"`
	OrphanCollections []string         `json:"orphanCollections"`
}

// Collections returns the graph's vertex and edge collections.
func (g *Graph) Collections() (vertex, edge []string) {
	seen := map[string]bool{}
	add := func(list *[]string, names ...string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				*list = append(*list, n)
			}
		}
	}
	for _, e := range g.EdgeDefinitions {
		add(&edge, e.Collection)
	}
	for _, e := range g.EdgeDefinitions {
		add(&vertex, e.From...)
		add(&vertex, e.To...)
	}
	add(&vertex, g.OrphanCollections...)
	sort.Strings(vertex)
	sort.Strings(edge)
	return vertex, edge
}

// graphsCollection returns _graphs, created when missing.
func (s *Store) graphsCollection(db string) error {
	_, err := s.CreateCollection(db, GraphsCollection, DocumentCollection, true, false, KeyOptions{AllowUserKeys: true})
	if err != nil && !errors.Is(err, ErrDuplicateName) {
		return err
	}
	return nil
}

// CreateGraph stores a graph definition and creates its missing
// collections (edge collections as edges). It returns the stored graph.
func (s *Store) CreateGraph(db string, g Graph) (*Graph, error) {
	s.graphEdits.Lock()
	defer s.graphEdits.Unlock()
	if !ValidKey(g.Name) {
		return nil, ErrIllegalKey
	}
	if err := s.graphsCollection(db); err != nil {
		return nil, err
	}
	if _, err := s.Graph(db, g.Name); err == nil {
		return nil, ErrGraphExists
	}
	if g.OrphanCollections == nil {
		g.OrphanCollections = []string{}
	}
	vertex, edge := g.Collections()
	for _, name := range edge {
		if c, err := s.Collection(db, name); err == nil && c.Type != EdgeCollection {
			return nil, fmt.Errorf("%w: %s", ErrEdgeCollectionUse, name)
		}
	}
	for _, name := range edge {
		if _, err := s.CreateCollection(db, name, EdgeCollection, false, false, KeyOptions{AllowUserKeys: true}); err != nil && !errors.Is(err, ErrDuplicateName) {
			return nil, err
		}
	}
	for _, name := range vertex {
		if _, err := s.CreateCollection(db, name, DocumentCollection, false, false, KeyOptions{AllowUserKeys: true}); err != nil && !errors.Is(err, ErrDuplicateName) {
			return nil, err
		}
	}
	doc := map[string]any{"_key": g.Name, "name": g.Name, "edgeDefinitions": g.EdgeDefinitions, "orphanCollections": g.OrphanCollections}
	data, _ := json.Marshal(doc)
	var plain any
	_ = json.Unmarshal(data, &plain)
	res, err := s.Insert(db, GraphsCollection, []any{plain}, OverwriteConflict, true, true)
	if err != nil {
		return nil, err
	}
	if res[0].Err != nil {
		if errors.Is(res[0].Err, ErrUniqueConstraint) {
			return nil, ErrGraphExists
		}
		return nil, res[0].Err
	}
	return &g, nil
}

// Graph returns a graph definition.
func (s *Store) Graph(db, name string) (*Graph, error) {
	data, err := s.Document(db, GraphsCollection, name)
	if errors.Is(err, ErrDocumentNotFound) || errors.Is(err, ErrCollectionNotFound) {
		return nil, ErrGraphNotFound
	}
	if err != nil {
		return nil, err
	}
	var g Graph
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("the graph %q is corrupt: %v", name, err)
	}
	if g.OrphanCollections == nil {
		g.OrphanCollections = []string{}
	}
	return &g, nil
}

// Graphs returns a database's graphs, by name.
func (s *Store) Graphs(db string) ([]*Graph, error) {
	keys, err := s.Keys(db, GraphsCollection)
	if errors.Is(err, ErrCollectionNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Graph
	for _, k := range keys {
		g, err := s.Graph(db, k)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// DropGraph deletes a graph definition and, with dropCollections, its
// collections that no other graph uses.
func (s *Store) DropGraph(db, name string, dropCollections bool) error {
	s.graphEdits.Lock()
	defer s.graphEdits.Unlock()
	g, err := s.Graph(db, name)
	if err != nil {
		return err
	}
	if _, err := s.Remove(db, GraphsCollection, []any{name}); err != nil {
		return err
	}
	if !dropCollections {
		return nil
	}
	used := map[string]bool{}
	others, err := s.Graphs(db)
	if err != nil {
		return err
	}
	for _, o := range others {
		v, e := o.Collections()
		for _, n := range append(v, e...) {
			used[n] = true
		}
	}
	v, e := g.Collections()
	for _, n := range append(v, e...) {
		if !used[n] {
			if _, err := s.DropCollection(db, n, false); err != nil && !errors.Is(err, ErrCollectionNotFound) {
				return err
			}
		}
	}
	return nil
}
