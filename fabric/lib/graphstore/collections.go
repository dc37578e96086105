package graphstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/cockroachdb/pebble/v2"
)

// Collection types, as ArangoDB numbers them.
const (
	DocumentCollection = 2
	EdgeCollection     = 3
)

// Errors of collections.
var (
	ErrCollectionName     = errors.New("illegal name")
	ErrCollectionNotFound = errors.New("collection or view not found")
	ErrSystemCollection   = errors.New("a system collection is dropped only with isSystem")
)

// KeyOptions are a collection's key generator settings.
type KeyOptions struct {
	Type          string `json:"type"`
	AllowUserKeys bool   `json:"allowUserKeys"`
	LastValue     uint64 `json:"lastValue"`
}

// CollectionInfo describes a collection. A published CollectionInfo is
// never changed: a change of properties or of name publishes a copy
// (callers may read one without the store's lock).
type CollectionInfo struct {
	Name        string     `json:"name"`
	ID          string     `json:"id"`
	Type        int        `json:"type"`
	IsSystem    bool       `json:"isSystem"`
	WaitForSync bool       `json:"waitForSync"`
	KeyOptions  KeyOptions `json:"keyOptions"`
	Properties
}

// Properties are the properties of a collection that change after it is
// created (besides waitForSync), as ArangoDB names them.
type Properties struct {
	// CacheEnabled is kept and reported; the store has no document cache
	// of its own to switch (Pebble's block cache serves every read).
	CacheEnabled bool `json:"cacheEnabled"`
	// Schema is the collection's schema as given (null: none); it is
	// kept and reported, not enforced.
	Schema json.RawMessage `json:"schema,omitempty"`
	// ComputedValues are computed on writes (see Computer).
	ComputedValues []ComputedValue `json:"computedValues,omitempty"`
}

// ComputedValue is an attribute a collection computes on writes with an
// AQL expression (ArangoDB's computed values).
type ComputedValue struct {
	Name          string   `json:"name"`
	Expression    string   `json:"expression"`
	ComputeOn     []string `json:"computeOn"`
	Overwrite     bool     `json:"overwrite"`
	KeepNull      bool     `json:"keepNull"`
	FailOnWarning bool     `json:"failOnWarning"`
}

const prefixCollection = "c/"

func collectionKey(db, name string) []byte { return []byte(prefixCollection + db + "/" + name) }

// loadCollections reads every collection record (at open).
func (s *Store) loadCollections() error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefixCollection), UpperBound: []byte("c0")})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		var info CollectionInfo
		if err := json.Unmarshal(it.Value(), &info); err != nil {
			return fmt.Errorf("the graph store's collection record %q is corrupt: %v", it.Key(), err)
		}
		db := string(it.Key()[len(prefixCollection):])
		db = db[:len(db)-len(info.Name)-1]
		s.collections(db)[info.Name] = &info
	}
	return it.Error()
}

// collections returns a database's collection map (callers hold mu).
func (s *Store) collections(db string) map[string]*CollectionInfo {
	m, ok := s.colls[db]
	if !ok {
		m = map[string]*CollectionInfo{}
		s.colls[db] = m
	}
	return m
}

// CreateCollection creates a collection of type typ in database db; a
// name starting with '_' needs system set.
func (s *Store) CreateCollection(db, name string, typ int, system, waitForSync bool, keys KeyOptions) (*CollectionInfo, error) {
	return s.CreateCollectionWith(db, name, typ, system, waitForSync, keys, Properties{})
}

// CreateCollectionWith is CreateCollection with properties (checked by
// the caller: see ComputedValue).
func (s *Store) CreateCollectionWith(db, name string, typ int, system, waitForSync bool, keys KeyOptions, props Properties) (*CollectionInfo, error) {
	if err := checkCollectionName(name, system); err != nil {
		return nil, err
	}
	if typ == 0 {
		typ = DocumentCollection
	}
	if typ != DocumentCollection && typ != EdgeCollection {
		return nil, fmt.Errorf("%w: type %d", ErrCollectionName, typ)
	}
	if keys.Type == "" {
		keys.Type = "traditional"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dbs[db]; !ok {
		return nil, ErrDatabaseNotFound
	}
	if _, ok := s.collections(db)[name]; ok {
		return nil, ErrDuplicateName
	}
	if len(s.colls[db]) >= MaxCollections {
		return nil, fmt.Errorf("%w: database %s has %d collections, the most one may have", ErrTooMany, db, MaxCollections)
	}
	info := &CollectionInfo{Name: name, ID: s.newID(), Type: typ, IsSystem: name[0] == '_', WaitForSync: waitForSync, KeyOptions: keys, Properties: props}
	if err := s.reserveIDs(); err != nil {
		return nil, err
	}
	data, _ := json.Marshal(info)
	if err := s.syncSet(collectionKey(db, name), data); err != nil {
		return nil, err
	}
	s.collections(db)[name] = info
	return info, nil
}

// Collection returns a collection's description.
func (s *Store) Collection(db, name string) (*CollectionInfo, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	info, ok := s.colls[db][name]
	if !ok {
		return nil, ErrCollectionNotFound
	}
	return info, nil
}

// Collections returns a database's collections, by name.
func (s *Store) Collections(db string) []*CollectionInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*CollectionInfo, 0, len(s.colls[db]))
	for _, c := range s.colls[db] {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// documentPrefix is where a collection's documents are kept.
func documentPrefix(db, coll string) []byte { return []byte("o/" + db + "/" + coll + "/") }

// prefixEnd is the first key after every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	end[len(end)-1]++
	return end
}

// DropCollection deletes a collection and its documents; a system
// collection only with system set.
func (s *Store) DropCollection(db, name string, system bool) (*CollectionInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.colls[db][name]
	if !ok {
		return nil, ErrCollectionNotFound
	}
	if info.IsSystem && !system {
		return nil, ErrSystemCollection
	}
	s.drain()
	b := s.db.NewBatch()
	defer b.Close()
	_ = b.Delete(collectionKey(db, name), nil)
	deleteCollectionRecords(b, db, name)
	p := indexDefPrefix(db, name)
	_ = b.DeleteRange(p, prefixEnd(p), nil)
	if err := s.commitBatch(b); err != nil {
		return nil, err
	}
	delete(s.colls[db], name)
	s.forget(db, name)
	delete(s.indexes, db+"/"+name)
	return info, nil
}

// Truncate deletes a collection's documents.
func (s *Store) Truncate(db, name string) (*CollectionInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.colls[db][name]
	if !ok {
		return nil, ErrCollectionNotFound
	}
	s.drain()
	b := s.db.NewBatch()
	defer b.Close()
	deleteCollectionRecords(b, db, name)
	if err := s.commitBatch(b); err != nil {
		return nil, err
	}
	s.forget(db, name)
	s.cleared(db, name)
	s.revs[db+"/"+name] = s.newRev()
	return info, nil
}

// cleared records that a collection lost every document, for the writers
// that read ahead meanwhile (callers hold mu, and drained the batches
// being committed).
func (s *Store) cleared(db, coll string) {
	s.applied++
	s.visible = s.applied
	if len(s.readers) > 0 {
		s.recent = append(s.recent, &recentBatch{gen: s.applied, db: db, coll: coll, all: true, done: true})
	}
}

// Count returns how many documents a collection holds.
func (s *Store) Count(db, name string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.colls[db][name]; !ok {
		return 0, ErrCollectionNotFound
	}
	return s.count(db, name), nil
}
