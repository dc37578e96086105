package graphstore

import (
	"bytes"

	"github.com/cockroachdb/pebble/v2"
)

// Reader reads one consistent view of the store through one iterator:
// for the many small reads of a query (a traversal's edges and
// vertices), each a seek instead of a new iterator. Close it when done.
type Reader struct {
	s     *Store
	it    *pebble.Iterator
	known map[[2]string]bool // collections found (one lock, not one per read)
}

// NewReader returns a reader of the store as it is now.
func (s *Store) NewReader() (*Reader, error) {
	it, err := s.db.NewIter(nil)
	if err != nil {
		return nil, err
	}
	return &Reader{s: s, it: it}, nil
}

// collection checks once per reader that a collection exists.
func (r *Reader) collection(db, coll string) error {
	k := [2]string{db, coll}
	if r.known[k] {
		return nil
	}
	if _, err := r.s.Collection(db, coll); err != nil {
		return err
	}
	if r.known == nil {
		r.known = map[[2]string]bool{}
	}
	r.known[k] = true
	return nil
}

// Close releases the reader's view.
func (r *Reader) Close() error { return r.it.Close() }

// Document returns a stored document (ErrDocumentNotFound when there is
// none, ErrCollectionNotFound when the collection does not exist).
func (r *Reader) Document(db, coll, key string) (Doc, error) {
	if err := r.collection(db, coll); err != nil {
		return nil, err
	}
	if !ValidKey(key) {
		return nil, ErrDocumentNotFound
	}
	k := docKey(db, coll, key)
	// A prefix seek (the whole key is the prefix) lets each level's Bloom
	// filter rule it out without a block read.
	if !r.it.SeekPrefixGE(k) || !bytes.Equal(r.it.Key(), k) {
		if err := r.it.Error(); err != nil {
			return nil, err
		}
		return nil, ErrDocumentNotFound
	}
	return decodeStored(coll, key, r.it.Value())
}

// Neighbors is Store.Neighbors through the reader.
func (r *Reader) Neighbors(db, coll, vertex string, dir Direction) ([]Neighbor, error) {
	if err := r.collection(db, coll); err != nil {
		return nil, err
	}
	prefix := edgeIndexPrefix(dir.index(), db, coll, vertex)
	var out []Neighbor
	for ok := r.it.SeekGE(prefix); ok && bytes.HasPrefix(r.it.Key(), prefix); ok = r.it.Next() {
		out = append(out, Neighbor{Key: string(r.it.Key()[len(prefix):]), Other: string(r.it.Value())})
	}
	return out, r.it.Error()
}
