package graphstore

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// An edge collection keeps two indexes beside its documents, written in
// the same batch: f/DB/COLL/<_from>\x00<key> and t/DB/COLL/<_to>\x00<key>,
// so that a traversal reads a vertex's edges without a scan. Each entry's
// value is the edge's other end, so that a traversal that does not look
// at its edges reads no edge document. Each
// collection also keeps its document count at n/DB/COLL.

// Direction is the way a traversal follows edges.
type Direction int

// The directions of a traversal.
const (
	Outbound Direction = iota
	Inbound
)

func edgeIndexKey(index byte, db, coll, vertex, key string) []byte {
	return []byte(string(index) + "/" + db + "/" + coll + "/" + vertex + "\x00" + key)
}

func edgeIndexPrefix(index byte, db, coll, vertex string) []byte {
	return []byte(string(index) + "/" + db + "/" + coll + "/" + vertex + "\x00")
}

func countKey(db, coll string) []byte { return []byte("n/" + db + "/" + coll) }

// indexEdge adds (or, with del, removes) an edge document's index entries.
func indexEdge(b kvWriter, db, coll string, doc Doc, del bool) {
	from, _ := doc["_from"].(string)
	to, _ := doc["_to"].(string)
	key, _ := doc["_key"].(string)
	if from == "" || to == "" || key == "" {
		return
	}
	if del {
		_ = b.Delete(edgeIndexKey('f', db, coll, from, key), nil)
		_ = b.Delete(edgeIndexKey('t', db, coll, to, key), nil)
		return
	}
	_ = b.Set(edgeIndexKey('f', db, coll, from, key), []byte(to), nil)
	_ = b.Set(edgeIndexKey('t', db, coll, to, key), []byte(from), nil)
}

// addCount changes a collection's document count by delta in the batch.
func (s *Store) addCount(b *pebble.Batch, db, coll string, delta int64) {
	if delta == 0 {
		return
	}
	n := s.count(db, coll) + delta
	s.counts[db+"/"+coll] = n
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(n))
	_ = b.Set(countKey(db, coll), v[:], nil)
}

// count returns a collection's document count (callers hold mu), read
// from the store the first time.
func (s *Store) count(db, coll string) int64 {
	if n, ok := s.counts[db+"/"+coll]; ok {
		return n
	}
	var n int64
	if v, closer, err := s.db.Get(countKey(db, coll)); err == nil {
		if len(v) == 8 {
			n = int64(binary.BigEndian.Uint64(v))
		}
		closer.Close()
	}
	s.counts[db+"/"+coll] = n
	return n
}

// Edges returns the keys of a vertex's edges in an edge collection, in
// the direction asked (outbound: the vertex is _from; inbound: _to).
func (s *Store) Edges(db, coll, vertex string, dir Direction) ([]string, error) {
	if _, err := s.Collection(db, coll); err != nil {
		return nil, err
	}
	index := byte('f')
	if dir == Inbound {
		index = 't'
	}
	var keys []string
	err := s.each(edgeIndexPrefix(index, db, coll, vertex), func(k, _ []byte) bool {
		keys = append(keys, string(k))
		return true
	})
	return keys, err
}

// kvWriter is what writes go to: a batch, or the sorted buffer of a
// document batch (writeBuffer).
type kvWriter interface {
	Set(key, value []byte, o *pebble.WriteOptions) error
	Delete(key []byte, o *pebble.WriteOptions) error
}

// writeBuffer holds a document batch's writes so that they reach the
// batch in key order: the memtable takes sorted keys much faster than
// random ones (edge keys are hashes).
type writeBuffer struct{ ops []kvOp }

type kvOp struct {
	key, value []byte
	del        bool
	seq        int // the order of writes to one key
	item       int // the item of a document batch the write is for
}

func (w *writeBuffer) Set(key, value []byte, _ *pebble.WriteOptions) error {
	w.ops = append(w.ops, kvOp{key: key, value: value, seq: len(w.ops)})
	return nil
}

func (w *writeBuffer) Delete(key []byte, _ *pebble.WriteOptions) error {
	w.ops = append(w.ops, kvOp{key: key, del: true, seq: len(w.ops)})
	return nil
}

// sort orders the buffered writes by key (writes of one key in the order
// they were made).
func (w *writeBuffer) sort() {
	slices.SortFunc(w.ops, func(x, y kvOp) int {
		if c := bytes.Compare(x.key, y.key); c != 0 {
			return c
		}
		return x.seq - y.seq
	})
}

// flush writes the buffered writes to b in key order, merged with pre
// (writes sorted beforehand, of which only those keep reports true): on
// equal keys pre's come first, as they were the first writes of their
// keys.
func (w *writeBuffer) flush(b *pebble.Batch, pre []kvOp, keep func(op kvOp) bool) {
	w.sort()
	put := func(op kvOp) {
		if op.del {
			_ = b.Delete(op.key, nil)
		} else {
			_ = b.Set(op.key, op.value, nil)
		}
	}
	i, j := 0, 0
	for i < len(pre) || j < len(w.ops) {
		if i < len(pre) && !keep(pre[i]) {
			i++
			continue
		}
		if j >= len(w.ops) || i < len(pre) && bytes.Compare(pre[i].key, w.ops[j].key) <= 0 {
			put(pre[i])
			i++
		} else {
			put(w.ops[j])
			j++
		}
	}
	w.ops = nil
}

// Neighbor is an edge as its index knows it: its key and its other end.
type Neighbor struct {
	Key, Other string
}

// Neighbors returns a vertex's edges in an edge collection with their
// other ends, from the index alone, in the direction asked.
func (s *Store) Neighbors(db, coll, vertex string, dir Direction) ([]Neighbor, error) {
	if _, err := s.Collection(db, coll); err != nil {
		return nil, err
	}
	index := byte('f')
	if dir == Inbound {
		index = 't'
	}
	var out []Neighbor
	err := s.each(edgeIndexPrefix(index, db, coll, vertex), func(k, v []byte) bool {
		out = append(out, Neighbor{Key: string(k), Other: string(v)})
		return true
	})
	return out, err
}

// dropIndexes deletes a collection's edge indexes and count in the batch.
func dropIndexes(b *pebble.Batch, db, coll string) {
	for _, index := range []byte{'f', 't'} {
		p := []byte(string(index) + "/" + db + "/" + coll + "/")
		_ = b.DeleteRange(p, prefixEnd(p), nil)
	}
	_ = b.Delete(countKey(db, coll), nil)
}
