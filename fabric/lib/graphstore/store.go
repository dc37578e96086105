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
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// System is the database that always exists.
const System = "_system"

// MaxDatabases and MaxCollections (per database) bound what a tenant can
// make: each database and collection is held in memory while the store
// is open, whatever it holds on disk.
const (
	MaxDatabases   = 1000
	MaxCollections = 10000
)

// ErrTooMany is the error of making a database or collection past its
// bound.
var ErrTooMany = errors.New("resource limit exceeded")

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

	// graphEdits serialises the changes to the store's graph
	// definitions (each reads a definition, checks it against the others
	// and writes it back), so that two concurrent changes cannot lose one
	// another; another store's (another tenant's) are not held up.
	graphEdits sync.Mutex

	mu     sync.RWMutex
	dbs    map[string]*DatabaseInfo
	colls  map[string]map[string]*CollectionInfo // by database, by name
	counts map[string]int64                      // documents, by "db/collection", read on first use
	// nextID hands out ids and revisions; reserved is the counter as
	// stored, above every id a committed write used (see reserveIDs).
	nextID   atomic.Uint64
	reserved uint64
	// Document batches (writer.go) are applied under mu, each numbered
	// (its gen) in that order, and committed to Pebble after mu is
	// released, so that several commit at once. pending holds those not
	// yet committed; visible is the gen up to which all are. recent holds
	// the writes of the batches a writer that read ahead may have missed;
	// readers are the gens such writers read at (visible, then).
	// committed is signalled as batches are committed; broken is the
	// error of a failed commit, after which the store takes no writes.
	applied   uint64
	visible   uint64
	pending   map[uint64]*recentBatch
	recent    []*recentBatch
	readers   map[uint64]int
	committed *sync.Cond
	broken    error
	closed    bool
	filters   map[string]*keyFilter // by "db/collection" (keyfilter.go)
	// indexes are the secondary indexes, by "db/collection" (indexes.go);
	// a list is replaced, never changed in place.
	indexes map[string][]*Index
	// locks are the documents stream transactions wrote, by
	// "db/collection/key" (txn.go).
	locks map[string]*Txn
	// revs are the collections' revisions (collops.go), by
	// "db/collection": a new one with each batch that writes to it.
	revs map[string]string
	// compacting lets one collection compaction run at a time.
	compacting sync.Mutex
	// computer computes collections' computed values (compute.go).
	computer atomic.Pointer[Computer]
	// fence is the store's disk fence (disk.go).
	fence *diskFence
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

// Open opens (creating when missing) the store in dir. Its files are
// readable by the owner only.
func Open(dir string) (*Store, error) {
	fence := &diskFence{dir: dir, minFree: MinFreeDisk}
	o := options()
	o.Logger = storeLogger{fence}
	o.FS = privateFS{vfs.Default}
	if err := o.FS.MkdirAll(dir, 0o700); err != nil {
		o.Cache.Unref()
		return nil, fmt.Errorf("opening the graph store in %s: %v", dir, err)
	}
	db, err := pebble.Open(dir, o)
	o.Cache.Unref() // the store holds its own reference
	if err != nil {
		return nil, fmt.Errorf("opening the graph store in %s: %v", dir, err)
	}
	s := &Store{db: db, dbs: map[string]*DatabaseInfo{}, colls: map[string]map[string]*CollectionInfo{}, counts: map[string]int64{}, pending: map[uint64]*recentBatch{}, readers: map[uint64]int{}, filters: map[string]*keyFilter{}, revs: map[string]string{}, fence: fence}
	s.committed = sync.NewCond(&s.mu)
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
	o := &pebble.Options{Cache: pebble.NewCache(CacheSize), MemTableSize: 128 << 20,
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
		s.reserved = n
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
	if err := s.loadCollections(); err != nil {
		return err
	}
	if err := s.loadIndexes(); err != nil {
		return err
	}
	return s.buildOrder()
}

// newID returns a new object id (callers hold mu or are opening).
func (s *Store) newID() string {
	return strconv.FormatUint(s.nextID.Add(1), 10)
}

// idLease is how far ahead of the ids handed out the stored counter is
// kept: it is written about once per idLease/2 ids, not with each batch.
const idLease = 1 << 20

// reserveIDs makes the stored id counter stay above every id handed out
// so far (callers hold mu, before committing writes that use them): a
// synced write of its own, so that batches committed in any order never
// store an older counter over a newer one.
func (s *Store) reserveIDs() error {
	next := s.nextID.Load()
	if next+idLease/2 <= s.reserved {
		return nil
	}
	reserved := next + idLease
	if err := s.syncSet([]byte(keyNextID), []byte(strconv.FormatUint(reserved, 10))); err != nil {
		return err
	}
	s.reserved = reserved
	return nil
}

// putDatabase writes a database record, synced.
func (s *Store) putDatabase(info *DatabaseInfo) error {
	if err := s.reserveIDs(); err != nil {
		return err
	}
	data, _ := json.Marshal(info)
	if err := s.syncSet([]byte(prefixDatabase+info.Name), data); err != nil {
		return err
	}
	s.dbs[info.Name] = info
	return nil
}

// Close closes the store once the batches being committed are (once:
// closing it again does nothing).
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drain()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.closeDB()
}

// CreateDatabase creates a database.
func (s *Store) CreateDatabase(name string) (*DatabaseInfo, error) {
	if err := checkDatabaseName(name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dbs[name]; ok {
		return nil, ErrDuplicateName
	}
	if len(s.dbs) >= MaxDatabases {
		return nil, fmt.Errorf("%w: the store has %d databases, the most it may have", ErrTooMany, MaxDatabases)
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
	s.drain()
	b := s.db.NewBatch()
	defer b.Close()
	_ = b.Delete([]byte(prefixDatabase+name), nil)
	// The database's collections live under "c/NAME/", and each
	// collection's records under its prefixes (collectionPrefixes): range
	// deletes drop them with it. The ranges of the record kinds known here
	// also drop what a collection no longer listed may have left.
	_ = b.DeleteRange([]byte("c/"+name+"/"), []byte("c/"+name+"0"), nil)
	for coll := range s.colls[name] {
		deleteCollectionRecords(b, name, coll)
	}
	for _, p := range []string{"o/", "f/", "t/", "n/", "r/", "i/", "x/"} {
		_ = b.DeleteRange([]byte(p+name+"/"), []byte(p+name+"0"), nil)
	}
	if err := s.commitBatch(b); err != nil {
		return err
	}
	delete(s.dbs, name)
	for coll := range s.colls[name] {
		s.forget(name, coll)
	}
	delete(s.colls, name)
	for k := range s.indexes {
		if strings.HasPrefix(k, name+"/") {
			delete(s.indexes, k)
		}
	}
	s.dropFilters(name, "")
	for k := range s.counts {
		if strings.HasPrefix(k, name+"/") {
			delete(s.counts, k)
		}
	}
	return nil
}
