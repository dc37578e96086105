package graphstore

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
)

// TestGraphEditsConcurrent: concurrent additions to one graph's
// collections are all kept, and survive a reopening.
func TestGraphEditsConcurrent(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateDatabase("g"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateGraph("g", Graph{Name: "social"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var want []string
	for i := range 8 {
		v, e := fmt.Sprintf("v%d", i), fmt.Sprintf("e%d", i)
		want = append(want, v, "w"+v)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.AddVertexCollection("g", "social", v); err != nil {
				t.Error(err)
			}
			if _, err := s.AddEdgeDefinition("g", "social", EdgeDefinition{Collection: e, From: []string{v}, To: []string{"w" + v}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g, err := s.Graph("g", "social")
	if err != nil {
		t.Fatal(err)
	}
	vertex, edge := g.Collections()
	sort.Strings(want)
	if !slices.Equal(vertex, want) || len(edge) != 8 || len(g.OrphanCollections) != 0 {
		t.Errorf("vertex %v edge %v orphans %v, want vertex %v", vertex, edge, g.OrphanCollections, want)
	}
}

// TestReplaceSharedEdgeDefinition: replacing an edge definition that two
// graphs share changes it in both (not refused as another graph's), and
// the vertex collections each no longer uses become its orphans.
func TestReplaceSharedEdgeDefinition(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateDatabase("g"); err != nil {
		t.Fatal(err)
	}
	knows := EdgeDefinition{Collection: "knows", From: []string{"people"}, To: []string{"pets"}}
	for _, name := range []string{"a", "b"} {
		if _, err := s.CreateGraph("g", Graph{Name: name, EdgeDefinitions: []EdgeDefinition{knows}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddEdgeDefinition("g", "a", EdgeDefinition{Collection: "knows", From: []string{"x"}, To: []string{"x"}}); !errors.Is(err, ErrEdgeDefinitionReused) {
		t.Errorf("the same edge collection twice: %v", err)
	}
	if _, err := s.ReplaceEdgeDefinition("g", "a", EdgeDefinition{Collection: "knows", From: []string{"people"}, To: []string{"cities"}}, false); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		g, err := s.Graph("g", name)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.EdgeDefinitions) != 1 || !slices.Equal(g.EdgeDefinitions[0].To, []string{"cities"}) || !slices.Equal(g.OrphanCollections, []string{"pets"}) {
			t.Errorf("graph %s after the replace: %+v", name, g)
		}
	}
	if _, err := s.CreateGraph("g", Graph{Name: "c"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddEdgeDefinition("g", "c", EdgeDefinition{Collection: "knows", From: []string{"people"}, To: []string{"pets"}}); !errors.Is(err, ErrEdgeDefinitionOther) {
		t.Errorf("another graph's edge collection with other vertices: %v", err)
	}
}
