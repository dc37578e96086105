// Package graphstore is the storage of the embedded graph database:
// databases, collections and documents in a Pebble LSM store (every
// write goes through its write-ahead log and is synced before it is
// acknowledged, so an acknowledged write survives a kill -9). It knows
// nothing of HTTP; package graphdb serves it with ArangoDB's API.
//
// Pebble, not bbolt: a bulk insert of many documents is one batch
// appended to the log, where a B+tree rewrites pages per transaction;
// the insert target (200,000 documents a second) needs the log.
package graphstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
)

// System is the database that always exists.
const System = "_system"

// Errors of the store; the server maps each to ArangoDB's number.
var (
	ErrDuplicateName    = errors.New("duplicate name")
	ErrDatabaseName     = errors.New("database name invalid")
	ErrDatabaseNotFound = errors.New("database not found")
	ErrSystemOnly       = errors.New("operation not allowed on the system database")
)

// Store is an open graph store.
type Store struct {
	db *pebble.DB

	mu     sync.RWMutex
	dbs    map[string]*DatabaseInfo
	colls  map[string]map[string]*CollectionInfo // by database, by name
	counts map[string]int64                      // documents, by "db/collection", read on first use
	nextID atomic.Uint64                         // ids and revisions; persisted with each batch
	// gen counts the document batches applied; recent holds the keys of
	// the batches applied while some writer read ahead (see writeDocs),
	// readers the gens those writers read at.
	gen     uint64
	recent  []recentBatch
	readers map[uint64]int
	filters map[string]*keyFilter // by "db/collection" (keyfilter.go)
}

// DatabaseInfo describes a database.
type DatabaseInfo struct {
	Name     string `json:"name"`
	ID       string `json:"id"`
	IsSystem bool   `json:"isSystem"`
}

// Key prefixes of the store's records.
const (
	prefixDatabase = "d/"
	keyNextID      = "meta/next-id"
)

// Open opens (creating when missing) the store in dir.
func Open(dir string) (*Store, error) {
	o := options()
	db, err := pebble.Open(dir, o)
	o.Cache.Unref() // the store holds its own reference
	if err != nil {
		return nil, fmt.Errorf("opening the graph store in %s: %v", dir, err)
	}
	s := &Store{db: db, dbs: map[string]*DatabaseInfo{}, colls: map[string]map[string]*CollectionInfo{}, counts: map[string]int64{}, readers: map[uint64]int{}, filters: map[string]*keyFilter{}}
	if err := s.load(); err != nil {
		db.Close()
		return nil, err
	}
	if _, ok := s.dbs[System]; !ok {
		if err := s.putDatabase(&DatabaseInfo{Name: System, ID: s.newID(), IsSystem: true}); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// CacheSize bounds the store's block cache (memory is taken as blocks are
// read). A bulk insert of random keys (edge hashes) looks each key up in
// every level's Bloom filter; with 128 MB those filters kept being
// evicted and read again (2M edges: 45 s; with 512 MB: 38 s).
const CacheSize = 512 << 20

// options are the store's Pebble options: a block cache, Bloom filters on
// every level (a key that is not there, the common case of a bulk insert,
// costs no block read), larger memtables, L0 files and base level for bulk
// loads (fewer compactions: 2M edges 38 s -> 34 s; with 128 MB memtables
// and a 512 MB base level 25 s -> 19.5 s; 256 MB memtables cost more to
// insert into than they save), and no block
// compression: a traversal reads a few small blocks per vertex, and
// decompressing them cost more than reading them (p50 of a 3-hop
// traversal 1.03 ms with Snappy, 0.70 ms without; the store is about
// twice as large).
func options() *pebble.Options {
	o := &pebble.Options{Logger: quietLogger{}, Cache: pebble.NewCache(CacheSize), MemTableSize: 128 << 20,
		L0CompactionThreshold: 8, L0StopWritesThreshold: 32, LBaseMaxBytes: 512 << 20}
	o.TargetFileSizes[0] = 8 << 20 // doubled at each level below
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	o.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionNone })
	return o
}

// load reads the databases and the id counter.
func (s *Store) load() error {
	if v, closer, err := s.db.Get([]byte(keyNextID)); err == nil {
		n, _ := strconv.ParseUint(string(v), 10, 64)
		s.nextID.Store(n)
		closer.Close()
	} else if !errors.Is(err, pebble.ErrNotFound) {
		return err
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte(prefixDatabase), UpperBound: []byte("d0")})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		var info DatabaseInfo
		if err := json.Unmarshal(it.Value(), &info); err != nil {
			return fmt.Errorf("the graph store's database record %q is corrupt: %v", it.Key(), err)
		}
		s.dbs[info.Name] = &info
	}
	if err := it.Error(); err != nil {
		return err
	}
	return s.loadCollections()
}

// newID returns a new object id (callers hold mu or are opening).
func (s *Store) newID() string {
	return strconv.FormatUint(s.nextID.Add(1), 10)
}

// putDatabase writes a database record and the id counter, synced.
func (s *Store) putDatabase(info *DatabaseInfo) error {
	data, _ := json.Marshal(info)
	b := s.db.NewBatch()
	defer b.Close()
	_ = b.Set([]byte(prefixDatabase+info.Name), data, nil)
	_ = b.Set([]byte(keyNextID), []byte(strconv.FormatUint(s.nextID.Load(), 10)), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return err
	}
	s.dbs[info.Name] = info
	return nil
}

// quietLogger keeps Pebble's progress notes (recovery, compactions) out
// of the pod's log and passes its errors on.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)              {}
func (quietLogger) Errorf(format string, args ...any) { log.Printf("graph store: "+format, args...) }
func (quietLogger) Fatalf(format string, args ...any) { log.Fatalf("graph store: "+format, args...) }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// ValidDatabaseName reports whether name is a database name a user may
// create: a letter, then letters, digits, '_' and '-', at most 64 bytes.
func ValidDatabaseName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !(letter || i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '-')) {
			return false
		}
	}
	return true
}

// CreateDatabase creates a database.
func (s *Store) CreateDatabase(name string) (*DatabaseInfo, error) {
	if !ValidDatabaseName(name) {
		return nil, ErrDatabaseName
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dbs[name]; ok {
		return nil, ErrDuplicateName
	}
	info := &DatabaseInfo{Name: name, ID: s.newID()}
	if err := s.putDatabase(info); err != nil {
		return nil, err
	}
	return info, nil
}

// Database returns a database's description.
func (s *Store) Database(name string) (*DatabaseInfo, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	info, ok := s.dbs[name]
	if !ok {
		return nil, ErrDatabaseNotFound
	}
	return info, nil
}

// Databases returns the names of the databases, sorted.
func (s *Store) Databases() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.dbs))
	for n := range s.dbs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DropDatabase deletes a database and everything in it.
func (s *Store) DropDatabase(name string) error {
	if name == System {
		return ErrSystemOnly
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dbs[name]; !ok {
		return ErrDatabaseNotFound
	}
	b := s.db.NewBatch()
	defer b.Close()
	_ = b.Delete([]byte(prefixDatabase+name), nil)
	// The database's collections and documents live under "c/NAME/" and
	// "o/NAME/" (later); a range delete drops them with it.
	_ = b.DeleteRange([]byte("c/"+name+"/"), []byte("c/"+name+"0"), nil)
	for _, p := range []string{"o/", "f/", "t/", "n/"} {
		_ = b.DeleteRange([]byte(p+name+"/"), []byte(p+name+"0"), nil)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return err
	}
	delete(s.dbs, name)
	delete(s.colls, name)
	s.dropFilters(name, "")
	for k := range s.counts {
		if strings.HasPrefix(k, name+"/") {
			delete(s.counts, k)
		}
	}
	return nil
}
