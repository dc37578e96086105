package graphstore

import (
	"encoding/binary"

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

// index is the prefix byte of the direction's edge index: f (by _from)
// for outbound edges, t (by _to) for inbound ones.
func (d Direction) index() byte {
	if d == Inbound {
		return 't'
	}
	return 'f'
}

func edgeIndexKey(index byte, db, coll, vertex, key string) []byte {
	return []byte(string(index) + "/" + db + "/" + coll + "/" + vertex + "\x00" + key)
}

// keyArena builds many keys in one allocation: each is a slice of buf,
// which later keys never overwrite (a full buffer is replaced, not grown
// in place).
type keyArena struct{ buf []byte }

// grow makes room for n more bytes.
func (a *keyArena) grow(n int) {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(n, 2*cap(a.buf)))
	}
}

// add returns the concatenation of parts as a slice of the arena.
func (a *keyArena) add(parts ...string) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	a.grow(n)
	start := len(a.buf)
	for _, p := range parts {
		a.buf = append(a.buf, p...)
	}
	return a.buf[start:len(a.buf):len(a.buf)]
}

// text returns s as a slice of the arena.
func (a *keyArena) text(s string) []byte { return a.add(s) }

// docKey is docKey in the arena.
func (a *keyArena) docKey(db, coll, key string) []byte {
	return a.add("o/", db, "/", coll, "/", key)
}

// edgeIndexKey is edgeIndexKey in the arena.
func (a *keyArena) edgeIndexKey(index byte, db, coll, vertex, key string) []byte {
	prefix := "f/"
	if index == 't' {
		prefix = "t/"
	}
	return a.add(prefix, db, "/", coll, "/", vertex, "\x00", key)
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

// addCount changes a collection's document count by delta in the batch:
// the batch writes the delta under a key of its own (n/DB/COLL/ and a
// new id), so that batches committed in any order never conflict. The
// deltas are folded into the count (n/DB/COLL) when it is first read
// after the store opens.
func (s *Store) addCount(b *pebble.Batch, db, coll string, delta int64) {
	if delta == 0 {
		return
	}
	s.counts[db+"/"+coll] = s.count(db, coll) + delta
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(delta))
	_ = b.Set(binary.BigEndian.AppendUint64(countDeltaPrefix(db, coll), s.nextID.Add(1)), v[:], nil)
}

func countDeltaPrefix(db, coll string) []byte { return []byte("n/" + db + "/" + coll + "/") }

// count returns a collection's document count (callers hold mu), read
// from the store the first time: the count and the deltas written since
// it was last read, which are then folded into it. No batch of the
// collection is being committed then: each read the count before.
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
	deltas := 0
	p := countDeltaPrefix(db, coll)
	err := s.each(p, func(_, v []byte) bool {
		if len(v) == 8 {
			n += int64(binary.BigEndian.Uint64(v))
		}
		deltas++
		return true
	})
	if err == nil && deltas > 0 {
		b := s.db.NewBatch()
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], uint64(n))
		_ = b.Set(countKey(db, coll), v[:], nil)
		_ = b.DeleteRange(p, prefixEnd(p), nil)
		_ = s.commitBatch(b) // when it fails, the deltas are read again next time
		b.Close()
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
	var keys []string
	err := s.each(edgeIndexPrefix(dir.index(), db, coll, vertex), func(k, _ []byte) bool {
		keys = append(keys, string(k))
		return true
	})
	return keys, err
}

// Neighbor is an edge as its index knows it: its key and its other end.
type Neighbor struct {
	Key, Other string
}
