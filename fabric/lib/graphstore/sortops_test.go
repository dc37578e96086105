package graphstore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortOps: the radix sort orders writes as a stable sort by key does,
// for keys with long shared prefixes, prefixes of each other, empty keys
// and repeated keys (which keep the order they were made in).
func TestSortOps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 31, 32, 33, 100, 1000, 20000} {
		ops := make([]kvOp, n)
		for i := range ops {
			var key string
			switch r.IntN(5) {
			case 0:
				key = fmt.Sprintf("o/db/edges/%x", r.Uint64())
			case 1:
				key = fmt.Sprintf("f/db/edges/nodes/n%07d\x00%x", r.IntN(n+1), r.Uint32())
			case 2:
				key = fmt.Sprintf("t/db/edges/nodes/n%d", r.IntN(20))
			case 3:
				key = "t/db/edges/nodes/n"[:r.IntN(19)]
			default:
				key = fmt.Sprintf("o/db/edges/k%d", r.IntN(10))
			}
			ops[i] = kvOp{key: []byte(key), seq: int32(i)}
		}
		want := slices.Clone(ops)
		slices.SortStableFunc(want, func(x, y kvOp) int { return bytes.Compare(x.key, y.key) })
		sortOps(ops)
		for i := range ops {
			if !bytes.Equal(ops[i].key, want[i].key) || ops[i].seq != want[i].seq {
				t.Fatalf("n=%d: write %d is %q (seq %d), want %q (seq %d)", n, i, ops[i].key, ops[i].seq, want[i].key, want[i].seq)
			}
		}
	}
}
