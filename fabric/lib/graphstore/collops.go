package graphstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/fabricops/fabric/fabric/lib/docjson"
)

// Errors of collection operations.
var (
	// ErrRenameTooLarge is the error of a rename of a collection larger
	// than RenameLimit.
	ErrRenameTooLarge = errors.New("collection too large to rename")
)

// RenameLimit bounds the records (keys and values, in bytes) a rename
// moves: a rename is one atomic Pebble batch, held in memory until it is
// committed, under the store's write lock. A larger collection is
// refused (ErrRenameTooLarge) before anything is written: copy it into a
// new collection instead. A variable so that tests can lower it.
var RenameLimit = 64 << 20

// SetProperties changes a collection's properties: change is given a
// copy of them (and of waitForSync) to change, and the collection is
// stored and published with the result.
func (s *Store) SetProperties(db, name string, change func(waitForSync *bool, p *Properties) error) (*CollectionInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.colls[db][name]
	if !ok {
		return nil, ErrCollectionNotFound
	}
	next := *info
	next.ComputedValues = append([]ComputedValue(nil), info.ComputedValues...)
	if err := change(&next.WaitForSync, &next.Properties); err != nil {
		return nil, err
	}
	data, _ := json.Marshal(&next)
	if err := s.syncSet(collectionKey(db, name), data); err != nil {
		return nil, err
	}
	s.colls[db][name] = &next
	return &next, nil
}

// Rename renames a collection, with everything it keeps, in one atomic
// batch: its documents, edge indexes and count move to the new name's
// keys (see collectionPrefixes); its id stays. Graph definitions that
// name it are left as they are, as ArangoDB leaves them. A system
// collection is not renamed (ErrSystemCollection), nor a collection
// whose records pass RenameLimit (ErrRenameTooLarge).
func (s *Store) Rename(db, name, to string) (*CollectionInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.colls[db][name]
	if !ok {
		return nil, ErrCollectionNotFound
	}
	if info.IsSystem {
		return nil, ErrSystemCollection
	}
	if err := checkCollectionName(to, false); err != nil {
		return nil, err
	}
	if to == name {
		return info, nil
	}
	if _, ok := s.colls[db][to]; ok {
		return nil, ErrDuplicateName
	}
	s.drain()
	next := *info
	next.Name = to
	b := s.db.NewBatch()
	defer b.Close()
	data, _ := json.Marshal(&next)
	_ = b.Delete(collectionKey(db, name), nil)
	_ = b.Set(collectionKey(db, to), data, nil)
	if err := s.moveRecords(b, db, name, to); err != nil {
		return nil, err
	}
	// Its index definitions go with it (a truncate keeps them, so they
	// are not among its prefixes).
	defs, into := indexDefPrefix(db, name), indexDefPrefix(db, to)
	if err := s.each(defs, func(k, v []byte) bool {
		_ = b.Set(append(bytes.Clone(into), k...), bytes.Clone(v), nil)
		return true
	}); err != nil {
		return nil, err
	}
	_ = b.DeleteRange(defs, prefixEnd(defs), nil)
	if err := s.checkSpace(int64(b.Len())); err != nil {
		return nil, err
	}
	if err := s.guarded(func() error { return b.Commit(pebble.Sync) }); err != nil {
		return nil, err
	}
	delete(s.colls[db], name)
	s.colls[db][to] = &next
	if n, ok := s.counts[db+"/"+name]; ok {
		s.counts[db+"/"+to] = n
	}
	if kf, ok := s.filters[db+"/"+name]; ok {
		s.filters[db+"/"+to] = kf
	}
	if ixs, ok := s.indexes[db+"/"+name]; ok {
		s.indexes[db+"/"+to] = ixs
		delete(s.indexes, db+"/"+name)
	}
	s.forget(db, name)
	s.revs[db+"/"+to] = s.newRev()
	return &next, nil
}

// moveRecords writes into b the move of a collection's records from name
// to to (callers hold mu, drained).
func (s *Store) moveRecords(b *pebble.Batch, db, name, to string) error {
	from, into := collectionPrefixes(db, name), collectionPrefixes(db, to)
	for i, p := range from {
		err := s.each(p, func(k, v []byte) bool {
			if i == 0 && len(v) > 0 && v[0] != compactDoc {
				// A document stored whole names its _id: store it
				// compact (without _key and _id) under its new key.
				if d, err := decodeStored(name, string(k), v); err == nil {
					if c, err := compactData(d); err == nil {
						v = c
					}
				}
			}
			_ = b.Set(append(bytes.Clone(into[i]), k...), v, nil)
			return b.Len() <= RenameLimit
		})
		if err != nil {
			return err
		}
		if b.Len() > RenameLimit {
			return fmt.Errorf("%w: renaming %s moves more than %d MB, the limit of one rename; copy its documents into a new collection instead",
				ErrRenameTooLarge, name, RenameLimit>>20)
		}
		_ = b.DeleteRange(p, prefixEnd(p), nil)
	}
	toKeys := collectionKeys(db, to)
	for i, k := range collectionKeys(db, name) {
		v, closer, err := s.db.Get(k)
		if errors.Is(err, pebble.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		_ = b.Set(toKeys[i], v, nil)
		closer.Close()
		_ = b.Delete(k, nil)
	}
	return nil
}

// Revision returns a collection's revision: a new one after each write
// to it. It is not stored: after the store opens, a collection's first
// revision is "0" when it is empty, else a new one.
func (s *Store) Revision(db, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.colls[db][name]; !ok {
		return "", ErrCollectionNotFound
	}
	rev, ok := s.revs[db+"/"+name]
	if !ok {
		rev = "0"
		if s.count(db, name) > 0 {
			rev = s.newRev()
		}
		s.revs[db+"/"+name] = rev
	}
	return rev, nil
}

// Checksum returns a checksum of a collection's documents, as ArangoDB's
// does: the XOR of a hash of each document's key (with withRevisions,
// and its revision; with withData, and its other attributes), so that
// the same documents give the same checksum in any order, and any
// change of a key (or revision, or data) changes it. It reads one
// consistent view of the collection, and stops when ctx is done.
func (s *Store) Checksum(ctx context.Context, db, name string, withRevisions, withData bool) (uint64, string, error) {
	if _, err := s.Collection(db, name); err != nil {
		return 0, "", err
	}
	rev, err := s.Revision(db, name)
	if err != nil {
		return 0, "", err
	}
	var sum uint64
	var derr error
	n := 0
	err = s.each(documentPrefix(db, name), func(k, v []byte) bool {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			derr = ctx.Err()
			return false
		}
		h := fnv.New64a()
		h.Write(k)
		if withRevisions || withData {
			d, err := decodeStored(name, string(k), v)
			if err != nil {
				derr = err
				return false
			}
			if withRevisions {
				r, _ := d["_rev"].(string)
				h.Write([]byte{0})
				h.Write([]byte(r))
			}
			if withData {
				delete(d, "_key")
				delete(d, "_id")
				delete(d, "_rev")
				data, err := docjson.Append(nil, map[string]any(d)) // attributes sorted
				if err != nil {
					derr = err
					return false
				}
				h.Write([]byte{1})
				h.Write(data)
			}
		}
		sum ^= h.Sum64()
		return true
	})
	if derr != nil {
		return 0, "", derr
	}
	return sum, rev, err
}

// Figures are what the store knows of a collection's size.
type Figures struct {
	Count   int64  // documents
	Indexes int    // the primary index, and an edge collection's edge index
	Size    uint64 // bytes on disk of its records, as Pebble estimates them
}

// CollectionFigures returns a collection's figures.
func (s *Store) CollectionFigures(db, name string) (Figures, error) {
	info, err := s.Collection(db, name)
	if err != nil {
		return Figures{}, err
	}
	n, err := s.Count(db, name)
	if err != nil {
		return Figures{}, err
	}
	f := Figures{Count: n, Indexes: 1}
	if info.Type == EdgeCollection {
		f.Indexes = 2
	}
	for _, p := range collectionPrefixes(db, name) {
		if size, err := s.db.EstimateDiskUsage(p, prefixEnd(p)); err == nil {
			f.Size += size
		}
	}
	return f, nil
}

// RecalculateCount counts a collection's documents again, by a scan of
// their keys under the store's write lock, and stores the count.
func (s *Store) RecalculateCount(db, name string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.colls[db][name]; !ok {
		return 0, ErrCollectionNotFound
	}
	s.drain()
	var n int64
	if err := s.each(documentPrefix(db, name), func(_, _ []byte) bool { n++; return true }); err != nil {
		return 0, err
	}
	b := s.db.NewBatch()
	defer b.Close()
	p := countDeltaPrefix(db, name)
	_ = b.DeleteRange(p, prefixEnd(p), nil)
	_ = b.Set(countKey(db, name), binaryCount(n), nil)
	if err := s.commitBatch(b); err != nil {
		return 0, err
	}
	s.counts[db+"/"+name] = n
	return n, nil
}

// Compact compacts the store's records of a collection (Pebble's manual
// compaction of its key ranges). One compaction runs at a time per
// store: a call while one runs returns at once, as if done.
func (s *Store) Compact(ctx context.Context, db, name string) error {
	if _, err := s.Collection(db, name); err != nil {
		return err
	}
	if !s.compacting.TryLock() {
		return nil
	}
	defer s.compacting.Unlock()
	for _, p := range collectionPrefixes(db, name) {
		if err := s.guarded(func() error { return s.db.Compact(ctx, p, prefixEnd(p), false) }); err != nil {
			return err
		}
	}
	return nil
}

// FormatChecksum renders a checksum as ArangoDB does: a decimal string.
func FormatChecksum(sum uint64) string { return strconv.FormatUint(sum, 10) }
