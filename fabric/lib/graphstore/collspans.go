package graphstore

import (
	"encoding/binary"

	"github.com/cockroachdb/pebble/v2"
)

// collectionPrefixes are the key prefixes under which a collection keeps
// its records besides its catalog entry (c/DB/COLL) and its index
// definitions (x/DB/COLL/, kept by a truncate): its documents (o/), its
// edge indexes (f/, t/), its count deltas (n/DB/COLL/), its order index
// (r/) and its secondary index entries (i/).
// Each ends in '/', so that no other collection's keys share it. Every
// record a collection keeps under a prefix of its own is listed here:
// dropping, truncating and renaming a collection, and dropping its
// database, all go through this list (and collectionKeys).
func collectionPrefixes(db, coll string) [][]byte {
	return [][]byte{
		documentPrefix(db, coll),
		[]byte("f/" + db + "/" + coll + "/"),
		[]byte("t/" + db + "/" + coll + "/"),
		countDeltaPrefix(db, coll),
		orderPrefix(db, coll),
		collectionIndexPrefix(db, coll),
	}
}

// collectionKeys are the single records a collection keeps besides its
// catalog entry and its prefixes: its folded count (n/DB/COLL, which is
// no prefix: n/DB/COLLX is another collection's).
func collectionKeys(db, coll string) [][]byte {
	return [][]byte{countKey(db, coll)}
}

// deleteCollectionRecords deletes in b everything a collection keeps but
// its catalog entry.
func deleteCollectionRecords(b *pebble.Batch, db, coll string) {
	for _, p := range collectionPrefixes(db, coll) {
		_ = b.DeleteRange(p, prefixEnd(p), nil)
	}
	for _, k := range collectionKeys(db, coll) {
		_ = b.Delete(k, nil)
	}
}

// forget drops what the store holds in memory of a collection's records
// (callers hold mu): its count, key filter and revision.
func (s *Store) forget(db, coll string) {
	delete(s.counts, db+"/"+coll)
	delete(s.revs, db+"/"+coll)
	s.dropFilters(db, coll)
}

// binaryCount is a count as stored at n/DB/COLL.
func binaryCount(n int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(n))
}
