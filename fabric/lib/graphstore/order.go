package graphstore

import (
	"bytes"
	"errors"

	"github.com/cockroachdb/pebble/v2"
)

// A collection's documents are kept by key (o/DB/COLL/KEY), which point
// reads need; a full scan returns them in the order they were last
// written, as ArangoDB's does (its documents are kept by an id that
// grows with each write). That order is the order index: a record
// r/DB/COLL/ + len(rev) + rev + key per document, written and deleted
// with the document. Revisions are "_" and a base-36 number that grows,
// so length then text sorts them as numbers.

// orderPrefix is where a collection's order index is kept.
func orderPrefix(db, coll string) []byte { return []byte("r/" + db + "/" + coll + "/") }

// orderKey is a document's order index record.
func orderKey(db, coll, rev, key string) []byte {
	var a keyArena
	return a.orderKey(db, coll, rev, key)
}

// orderKey is orderKey in the arena.
func (a *keyArena) orderKey(db, coll, rev, key string) []byte {
	return a.add("r/", db, "/", coll, "/", string([]byte{byte(len(rev))}), rev, key)
}

// orderDocKey returns the document key of an order record (less its
// prefix).
func orderDocKey(rest []byte) ([]byte, bool) {
	if len(rest) == 0 || int(rest[0])+1 > len(rest) {
		return nil, false
	}
	return rest[1+int(rest[0]):], true
}

// keyOrder is the marker of a store whose order index is complete (every
// store opened since it was added has it).
const keyOrder = "meta/order-index"

// buildOrder writes the order index of every document of a store made
// before it had one, at open, in the documents' key order.
func (s *Store) buildOrder() error {
	if _, closer, err := s.db.Get([]byte(keyOrder)); err == nil {
		closer.Close()
		return nil
	} else if !errors.Is(err, pebble.ErrNotFound) {
		return err
	}
	b := s.db.NewBatch()
	defer func() { b.Close() }()
	for db, colls := range s.colls {
		for name := range colls {
			p := documentPrefix(db, name)
			err := s.each(p, func(k, v []byte) bool {
				d, err := decodeStored(name, string(k), v)
				if err != nil {
					return true // read as it is; it has no place in the order
				}
				rev, _ := d["_rev"].(string)
				_ = b.Set(orderKey(db, name, rev, string(k)), nil, nil)
				if b.Len() > 32<<20 {
					if err := b.Commit(pebble.NoSync); err != nil {
						return false
					}
					b.Close()
					b = s.db.NewBatch()
				}
				return true
			})
			if err != nil {
				return err
			}
		}
	}
	_ = b.Set([]byte(keyOrder), []byte("1"), nil)
	return b.Commit(pebble.Sync)
}

// Scan calls fn with each document of a collection, in the order they
// were last written, until fn returns false.
func (s *Store) Scan(db, coll string, fn func(Doc) bool) error {
	if _, err := s.Collection(db, coll); err != nil {
		return err
	}
	r, err := s.NewReader()
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Scan(db, coll, fn)
}

// Scan is Store.Scan through the reader's view.
func (r *Reader) Scan(db, coll string, fn func(Doc) bool) error {
	if err := r.collection(db, coll); err != nil {
		return err
	}
	p := orderPrefix(db, coll)
	order, err := r.clone(p)
	if err != nil {
		return err
	}
	defer order.Close()
	docs, err := r.clone(documentPrefix(db, coll))
	if err != nil {
		return err
	}
	defer docs.Close()
	for order.First(); order.Valid(); order.Next() {
		key, ok := orderDocKey(order.Key()[len(p):])
		if !ok {
			continue
		}
		full := docKey(db, coll, string(key))
		if !docs.SeekPrefixGE(full) || !bytes.Equal(docs.Key(), full) {
			continue // written after the order record was read
		}
		d, err := decodeStored(coll, string(key), docs.Value())
		if err != nil {
			return err
		}
		if !fn(d) {
			break
		}
	}
	if err := order.Error(); err != nil {
		return err
	}
	return docs.Error()
}

// clone returns an iterator of the reader's view over the records under
// prefix (the reader's own iterator stays where it is, for the reads a
// scan's caller makes meanwhile).
func (r *Reader) clone(prefix []byte) (*pebble.Iterator, error) {
	// RefreshBatchView: a transaction's reader (Txn.Use) sees its writes
	// made since the reader began.
	return r.it.Clone(pebble.CloneOptions{IterOptions: &pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix), UseL6Filters: true}, RefreshBatchView: true})
}
