package graphstore

import "bytes"

// sortOps sorts writes by key, stably (writes of one key stay in the
// order they were made): an MSD radix sort, a pass per byte position
// that tells keys apart, so that the random keys of a bulk insert (edge
// hashes) are sorted in about two passes instead of the n log n
// comparisons of a comparison sort; small ranges are insertion sorted.
func sortOps(ops []kvOp) {
	if len(ops) < 2 {
		return
	}
	radixSortOps(ops, make([]kvOp, len(ops)), 0)
}

// insertionLimit is the size under which a range is insertion sorted.
const insertionLimit = 32

func radixSortOps(ops, tmp []kvOp, depth int) {
	for {
		if len(ops) < insertionLimit {
			insertionSortOps(ops, depth)
			return
		}
		// Bucket 0 holds the keys that end before depth (all equal),
		// bucket b+1 those whose byte at depth is b.
		var count [257]int
		for i := range ops {
			count[bucketOf(ops[i].key, depth)]++
		}
		if count[0] == len(ops) {
			return // every key ends here: equal, in their order
		}
		if b := bucketOf(ops[0].key, depth); count[b] == len(ops) {
			depth++ // one byte shared by all: look further
			continue
		}
		var start [257]int
		for b := 1; b < 257; b++ {
			start[b] = start[b-1] + count[b-1]
		}
		next := start
		for i := range ops {
			b := bucketOf(ops[i].key, depth)
			tmp[next[b]] = ops[i]
			next[b]++
		}
		copy(ops, tmp[:len(ops)])
		for b := 1; b < 257; b++ {
			if count[b] > 1 {
				lo, hi := start[b], start[b]+count[b]
				radixSortOps(ops[lo:hi], tmp[lo:hi], depth+1)
			}
		}
		return
	}
}

// bucketOf is a key's bucket at depth: 0 when it ends before, else the
// byte there plus one.
func bucketOf(key []byte, depth int) int {
	if depth >= len(key) {
		return 0
	}
	return int(key[depth]) + 1
}

// insertionSortOps sorts ops stably by their keys, which share their
// first depth bytes.
func insertionSortOps(ops []kvOp, depth int) {
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && bytes.Compare(ops[j].key[depth:], ops[j-1].key[depth:]) < 0; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}
