package graphstore

import (
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
