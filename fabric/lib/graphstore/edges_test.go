package graphstore

import (
	"slices"
	"testing"
)

// TestEdgeIndexesAndCounts: a vertex's edges are found by its index in
// both directions, follow an edge's change and deletion, survive a
// reopening, and the document count stays right through it all.
func TestEdgeIndexesAndCounts(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateDatabase("g"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateCollection("g", "knows", EdgeCollection, false, false, KeyOptions{AllowUserKeys: true}); err != nil {
		t.Fatal(err)
	}
	edge := func(key, from, to string) any { return map[string]any{"_key": key, "_from": from, "_to": to} }
	if _, err := s.Insert("g", "knows", []any{edge("e1", "p/a", "p/b"), edge("e2", "p/a", "p/c"), edge("e3", "p/c", "p/b")}, OverwriteConflict, true, true); err != nil {
		t.Fatal(err)
	}
	check := func(vertex string, dir Direction, want ...string) {
		t.Helper()
		got, err := s.Edges("g", "knows", vertex, dir)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("edges of %s (%d): %v %v, want %v", vertex, dir, got, err, want)
		}
	}
	count := func(want int64) {
		t.Helper()
		if n, err := s.Count("g", "knows"); n != want || err != nil {
			t.Errorf("count %d %v, want %d", n, err, want)
		}
	}
	check("p/a", Outbound, "e1", "e2")
	check("p/b", Inbound, "e1", "e3")
	count(3)
	if _, err := s.Modify("g", "knows", []any{map[string]any{"_key": "e1", "_to": "p/c"}}, false, true, true); err != nil {
		t.Fatal(err)
	}
	check("p/b", Inbound, "e3")
	check("p/c", Inbound, "e1", "e2")
	if _, err := s.Remove("g", "knows", []any{"e2", "nope"}); err != nil {
		t.Fatal(err)
	}
	check("p/a", Outbound, "e1")
	count(2)
	// A replace by insert does not count twice.
	if _, err := s.Insert("g", "knows", []any{edge("e3", "p/c", "p/a")}, OverwriteReplace, true, true); err != nil {
		t.Fatal(err)
	}
	count(2)
	check("p/a", Inbound, "e3")
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	count(2)
	check("p/a", Inbound, "e3")
	check("p/c", Outbound, "e3")
	if _, err := s.Truncate("g", "knows"); err != nil {
		t.Fatal(err)
	}
	count(0)
	check("p/c", Outbound)
}
