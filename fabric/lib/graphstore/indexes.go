package graphstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cockroachdb/pebble/v2"
)

// Index types a collection can have besides its primary index (and an
// edge collection's edge index), as ArangoDB names them; "hash" and
// "skiplist" are older names of persistent.
const (
	IndexPersistent = "persistent"
	IndexTTL        = "ttl"
)

// Errors of indexes.
var (
	ErrIndexNotFound    = errors.New("index not found")
	ErrIndexType        = errors.New("index type not supported")
	ErrIndexDefinition  = errors.New("bad index definition")
	ErrIndexEntries     = errors.New("too many index entries for one document")
	ErrIndexNameTaken   = errors.New("duplicate index name")
	ErrTooManyIndexes   = errors.New("too many indexes on the collection")
	ErrIndexBuildLength = errors.New("collection too large to index in one batch")
)

// MaxIndexes bounds the secondary indexes of one collection (each makes
// every write of the collection do more).
const MaxIndexes = 64

// maxEntriesPerDoc bounds the entries one document makes in one index
// (an array index over a huge array).
const maxEntriesPerDoc = 1 << 16

// Index is a secondary index of a collection: its entries
// (i/DB/COLL/ID/ + the encoded values of its fields + the document's key)
// are written with the documents, in the same batch.
type Index struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	Fields       []string `json:"fields"`
	Unique       bool     `json:"unique"`
	Sparse       bool     `json:"sparse"`
	Deduplicate  bool     `json:"deduplicate"`
	Estimates    bool     `json:"estimates"`
	CacheEnabled bool     `json:"cacheEnabled"`
	// ExpireAfter is a ttl index's seconds after its attribute's time.
	ExpireAfter float64 `json:"expireAfter,omitempty"`
	// StoredValues are kept as given (the store reads documents).
	StoredValues []string `json:"storedValues,omitempty"`

	paths []fieldPath
}

// fieldPath is an indexed attribute: a path, and for an array index
// (a[*] or a[*].b) the path within each element.
type fieldPath struct {
	attrs  []string
	expand bool
	inner  []string
}

// parseField reads an index field ("a.b", "tags[*]", "a[*].b").
func parseField(f string) (fieldPath, error) {
	var p fieldPath
	head, rest, expand := strings.Cut(f, "[*]")
	if f == "" || strings.Contains(rest, "[*]") {
		return p, fmt.Errorf("%w: field %q", ErrIndexDefinition, f)
	}
	p.attrs = strings.Split(head, ".")
	p.expand = expand
	if expand && rest != "" {
		if !strings.HasPrefix(rest, ".") {
			return p, fmt.Errorf("%w: field %q", ErrIndexDefinition, f)
		}
		p.inner = strings.Split(rest[1:], ".")
	}
	for _, a := range append(append([]string{}, p.attrs...), p.inner...) {
		if a == "" {
			return p, fmt.Errorf("%w: field %q", ErrIndexDefinition, f)
		}
	}
	return p, nil
}

// Expands reports whether a field of the index is an array field (a[*]):
// a document may then have several entries.
func (ix *Index) Expands() bool {
	for _, p := range ix.paths {
		if p.expand {
			return true
		}
	}
	return false
}

// attribute reads a path of a value (nil, false when it is missing).
func attribute(v any, path []string) (any, bool) {
	for _, a := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[a]; !ok {
			return nil, false
		}
	}
	return v, true
}

// entries returns the encoded values of a document's entries in the
// index (none when the index leaves it out).
func (ix *Index) entries(doc Doc) ([][]byte, error) {
	out := [][]byte{nil}
	for _, p := range ix.paths {
		v, ok := attribute(map[string]any(doc), p.attrs)
		if !p.expand {
			if !ok {
				v = nil
			}
			if v == nil && ix.Sparse {
				return nil, nil
			}
			for i := range out {
				out[i] = appendValue(out[i], v)
			}
			continue
		}
		list, isList := v.([]any)
		if !isList || len(list) == 0 {
			return nil, nil // an array field that is not an array: not indexed
		}
		var elems [][]byte
		seen := map[string]bool{}
		for _, e := range list {
			if p.inner != nil {
				e, _ = attribute(e, p.inner)
			}
			enc := appendValue(nil, e)
			if seen[string(enc)] { // one entry per value (the document's key ends it)
				if ix.Unique && !ix.Deduplicate {
					return nil, uniqueError(ix, doc["_key"].(string)) // the array repeats a value
				}
				continue
			}
			seen[string(enc)] = true
			elems = append(elems, enc)
		}
		if len(out)*len(elems) > maxEntriesPerDoc {
			return nil, fmt.Errorf("%w: index %s makes more than %d", ErrIndexEntries, ix.Name, maxEntriesPerDoc)
		}
		next := make([][]byte, 0, len(out)*len(elems))
		for _, o := range out {
			for _, e := range elems {
				next = append(next, append(append([]byte(nil), o...), e...))
			}
		}
		out = next
	}
	return out, nil
}

func indexDefKey(db, coll, id string) []byte { return []byte("x/" + db + "/" + coll + "/" + id) }

func indexDefPrefix(db, coll string) []byte { return []byte("x/" + db + "/" + coll + "/") }

// indexEntryPrefix is where an index's entries are kept.
func indexEntryPrefix(db, coll, id string) []byte {
	return []byte("i/" + db + "/" + coll + "/" + id + "/")
}

// collectionIndexPrefix is where all of a collection's index entries are.
func collectionIndexPrefix(db, coll string) []byte { return []byte("i/" + db + "/" + coll + "/") }

// loadIndexes reads the index definitions (at open).
func (s *Store) loadIndexes() error {
	s.indexes = map[string][]*Index{}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte("x/"), UpperBound: []byte("x0")})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		var ix Index
		if err := json.Unmarshal(it.Value(), &ix); err != nil {
			return fmt.Errorf("the graph store's index record %q is corrupt: %v", it.Key(), err)
		}
		if err := ix.parse(); err != nil {
			return fmt.Errorf("the graph store's index record %q: %v", it.Key(), err)
		}
		rest := string(it.Key()[2:]) // DB/COLL/ID
		k := rest[:len(rest)-len(ix.ID)-1]
		s.indexes[k] = append(s.indexes[k], &ix)
	}
	for _, list := range s.indexes {
		sortIndexes(list)
	}
	return it.Error()
}

func (ix *Index) parse() error {
	ix.paths = ix.paths[:0]
	for _, f := range ix.Fields {
		p, err := parseField(f)
		if err != nil {
			return err
		}
		ix.paths = append(ix.paths, p)
	}
	return nil
}

// Indexes returns a collection's secondary indexes, in the order they
// were made.
func (s *Store) Indexes(db, coll string) ([]*Index, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.colls[db][coll]; !ok {
		return nil, ErrCollectionNotFound
	}
	return s.indexes[db+"/"+coll], nil
}

// sameIndex reports whether two definitions make the same index.
func sameIndex(a, b *Index) bool {
	return a.Type == b.Type && a.Unique == b.Unique && a.Sparse == b.Sparse && strings.Join(a.Fields, "\x00") == strings.Join(b.Fields, "\x00") &&
		(a.Type != IndexTTL || a.ExpireAfter == b.ExpireAfter)
}

// CreateIndex makes a secondary index of a collection and writes the
// entries of the documents it holds; created is false when an index of
// the same definition exists (it is returned). A unique index that the
// documents violate is not made (ErrUniqueConstraint).
func (s *Store) CreateIndex(db, coll string, def Index) (ix *Index, created bool, err error) {
	switch def.Type {
	case "hash", "skiplist":
		def.Type = IndexPersistent
	case IndexPersistent:
	case IndexTTL:
		if len(def.Fields) != 1 || strings.Contains(def.Fields[0], "[*]") {
			return nil, false, fmt.Errorf("%w: a ttl index has one field, not an array", ErrIndexDefinition)
		}
		if def.Unique {
			return nil, false, fmt.Errorf("%w: a ttl index cannot be unique", ErrIndexDefinition)
		}
		def.Sparse = true
	default:
		return nil, false, fmt.Errorf("%w: %q", ErrIndexType, def.Type)
	}
	if len(def.Fields) == 0 || len(def.Fields) > 32 {
		return nil, false, fmt.Errorf("%w: an index has 1 to 32 fields", ErrIndexDefinition)
	}
	for _, f := range def.Fields {
		if f == "_id" || len(f) > 1024 {
			return nil, false, fmt.Errorf("%w: field %q cannot be indexed", ErrIndexDefinition, f)
		}
	}
	if err := def.parse(); err != nil {
		return nil, false, err
	}
	if len(def.Name) > 254 {
		return nil, false, fmt.Errorf("%w: name longer than 254 bytes", ErrIndexDefinition)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.colls[db][coll]; !ok {
		return nil, false, ErrCollectionNotFound
	}
	k := db + "/" + coll
	for _, old := range s.indexes[k] {
		if sameIndex(old, &def) && (def.Name == "" || def.Name == old.Name) {
			return old, false, nil
		}
		if def.Name != "" && old.Name == def.Name {
			return nil, false, ErrIndexNameTaken
		}
	}
	if def.Name == "primary" || def.Name == "edge" {
		return nil, false, ErrIndexNameTaken
	}
	if len(s.indexes[k]) >= MaxIndexes {
		return nil, false, fmt.Errorf("%w (at most %d)", ErrTooManyIndexes, MaxIndexes)
	}
	s.drain()
	def.ID = s.newID()
	if def.Name == "" {
		def.Name = "idx_" + def.ID
	}
	if err := s.reserveIDs(); err != nil {
		return nil, false, err
	}
	if err := s.buildIndex(db, coll, &def); err != nil {
		p := indexEntryPrefix(db, coll, def.ID)
		_ = s.db.DeleteRange(p, prefixEnd(p), pebble.NoSync)
		return nil, false, err
	}
	s.indexes[k] = append(append([]*Index(nil), s.indexes[k]...), &def)
	return &def, true, nil
}

// buildIndex writes the entries of a new index for the documents of its
// collection, then its definition (callers hold mu, drained).
func (s *Store) buildIndex(db, coll string, ix *Index) error {
	prefix := indexEntryPrefix(db, coll, ix.ID)
	var uniq map[string]string
	if ix.Unique {
		uniq = map[string]string{}
	}
	b := s.db.NewBatch()
	defer func() { b.Close() }()
	var ferr error
	err := s.each(documentPrefix(db, coll), func(k, v []byte) bool {
		d, err := decodeStored(coll, string(k), v)
		if err != nil {
			ferr = err
			return false
		}
		es, err := ix.entries(d)
		if err != nil {
			ferr = err
			return false
		}
		for _, e := range es {
			if uniq != nil {
				if other, dup := uniq[string(e)]; dup {
					ferr = uniqueError(ix, other)
					return false
				}
				uniq[string(e)] = string(k)
			}
			key := make([]byte, 0, len(prefix)+len(e)+len(k))
			_ = b.Set(append(append(append(key, prefix...), e...), k...), nil, nil)
		}
		if b.Len() > 32<<20 {
			if ferr = b.Commit(pebble.NoSync); ferr != nil {
				return false
			}
			b.Close()
			b = s.db.NewBatch()
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	data, _ := json.Marshal(ix)
	_ = b.Set(indexDefKey(db, coll, ix.ID), data, nil)
	return s.guarded(func() error { return b.Commit(pebble.Sync) })
}

// uniqueError is the error of a write that a unique index refuses.
func uniqueError(ix *Index, other string) error {
	return fmt.Errorf("%w - in index %s of type %s over '%s'; conflicting key: %s", ErrUniqueConstraint, ix.Name, ix.Type, strings.Join(ix.Fields, ", "), other)
}

// DropIndex deletes a secondary index and its entries.
func (s *Store) DropIndex(db, coll, id string) (*Index, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.colls[db][coll]; !ok {
		return nil, ErrCollectionNotFound
	}
	k := db + "/" + coll
	list := s.indexes[k]
	for i, ix := range list {
		if ix.ID != id && ix.Name != id {
			continue
		}
		s.drain()
		b := s.db.NewBatch()
		defer b.Close()
		_ = b.Delete(indexDefKey(db, coll, ix.ID), nil)
		p := indexEntryPrefix(db, coll, ix.ID)
		_ = b.DeleteRange(p, prefixEnd(p), nil)
		if err := s.commitBatch(b); err != nil {
			return nil, err
		}
		s.indexes[k] = append(append([]*Index(nil), list[:i]...), list[i+1:]...)
		return ix, nil
	}
	return nil, ErrIndexNotFound
}

// Index returns a collection's secondary index by id or name.
func (s *Store) Index(db, coll, id string) (*Index, error) {
	list, err := s.Indexes(db, coll)
	if err != nil {
		return nil, err
	}
	for _, ix := range list {
		if ix.ID == id || ix.Name == id {
			return ix, nil
		}
	}
	return nil, ErrIndexNotFound
}

// hasUnique reports whether one of indexes is unique.
func hasUnique(indexes []*Index) bool {
	for _, ix := range indexes {
		if ix.Unique {
			return true
		}
	}
	return false
}

// sortIndexes orders index definitions by id, as made.
func sortIndexes(list []*Index) {
	sort.Slice(list, func(i, j int) bool {
		return len(list[i].ID) < len(list[j].ID) || len(list[i].ID) == len(list[j].ID) && list[i].ID < list[j].ID
	})
}
