package graphstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestConcurrentWriters: batches that read ahead outside the lock, are
// committed after it and overlap in their keys (inserts in every
// overwrite mode, replaces, removes, a truncate) leave the count equal to
// the documents stored, also after the store is opened again (the count's
// deltas folded in).
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	s := openCollectionIn(t, dir)
	modes := []OverwriteMode{OverwriteUpdate, OverwriteReplace, OverwriteIgnore, OverwriteConflict}
	concurrently(t, 8, 40, func(g, b int, r *rand.Rand) error {
		docs := make([]any, 50)
		for i := range docs {
			docs[i] = map[string]any{"_key": fmt.Sprintf("k%03d", r.IntN(300)), "g": g, "b": b}
		}
		var err error
		switch {
		case g == 7 && b == 20:
			_, err = s.Truncate("d", "c")
		case g%3 == 2:
			_, err = s.Remove("d", "c", docs)
		default:
			_, err = s.Insert("d", "c", docs, modes[(g+b)%len(modes)], true, true)
		}
		return err
	})
	n := checkCount(t, s)
	s.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if again := checkCount(t, s); again != n {
		t.Fatalf("count %d after opening again, %d before", again, n)
	}
	t.Logf("%d documents", n)
}

// TestConcurrentEdgeWriters: concurrent batches that move the same edges
// between vertices (updates, replaces, removes) leave every vertex's edge
// indexes naming exactly the edges whose _from or _to it is: a batch
// committed before one applied earlier that wrote the same edge would
// leave a stale index entry or lose one.
func TestConcurrentEdgeWriters(t *testing.T) {
	s := openCollectionIn(t, t.TempDir())
	if _, err := s.CreateCollection("d", "e", EdgeCollection, false, false, KeyOptions{AllowUserKeys: true, Type: "traditional"}); err != nil {
		t.Fatal(err)
	}
	const vertices = 20
	vertex := func(r *rand.Rand) string { return fmt.Sprintf("c/v%02d", r.IntN(vertices)) }
	concurrently(t, 8, 40, func(g, b int, r *rand.Rand) error {
		docs := make([]any, 50)
		for i := range docs {
			docs[i] = map[string]any{"_key": fmt.Sprintf("e%03d", r.IntN(200)), "_from": vertex(r), "_to": vertex(r), "g": g}
		}
		var err error
		switch {
		case g%4 == 3:
			_, err = s.Remove("d", "e", docs)
		case g%4 == 2:
			_, err = s.Modify("d", "e", docs, true, true, true)
		default:
			_, err = s.Insert("d", "e", docs, OverwriteUpdate, true, true)
		}
		return err
	})
	from, to := map[string][]string{}, map[string][]string{}
	err := s.Scan("d", "e", func(d Doc) bool {
		k := d["_key"].(string)
		from[d["_from"].(string)] = append(from[d["_from"].(string)], k)
		to[d["_to"].(string)] = append(to[d["_to"].(string)], k)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range vertices {
		v := fmt.Sprintf("c/v%02d", i)
		for dir, want := range map[Direction][]string{Outbound: from[v], Inbound: to[v]} {
			got, err := s.Edges("d", "e", v, dir)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s's edges (direction %d): index %v, documents %v", v, dir, got, want)
			}
		}
	}
	checkCount(t, s, "e")
}

// concurrently runs batch(g, b, r) for b < batches in each of writers
// goroutines g.
func concurrently(t *testing.T, writers, batches int, batch func(g, b int, r *rand.Rand) error) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for b := range batches {
				if err := batch(g, b, r); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// checkCount fails unless a collection's count (default c) is the number
// of its documents, and returns it.
func checkCount(t *testing.T, s *Store, coll ...string) int64 {
	t.Helper()
	c := "c"
	if len(coll) > 0 {
		c = coll[0]
	}
	n, err := s.Count("d", c)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := s.Keys("d", c)
	if err != nil {
		t.Fatal(err)
	}
	if int(n) != len(keys) {
		t.Fatalf("count %d, but %d documents stored", n, len(keys))
	}
	return n
}
