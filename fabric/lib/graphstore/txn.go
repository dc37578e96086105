package graphstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Errors of transactions.
var (
	ErrTxnDone   = errors.New("transaction is not running")
	ErrTxnLocked = errors.New("a document is being written by another transaction")
	ErrTxnSize   = errors.New("transaction too large")
	ErrTxnDrops  = errors.New("a collection the transaction wrote was dropped")
)

// MaxTxnBytes bounds what one transaction holds before it commits: its
// writes, with their index records, as a batch.
const MaxTxnBytes = 128 << 20

// Txn is a stream transaction: its writes go to a batch of its own, which
// its reads see and nobody else's do, and which is written to the store
// at once when it commits (all of it or, aborted or failed, none). The
// documents it writes are locked: another transaction's write of one, or
// a write outside transactions, fails with ErrTxnLocked until it ends.
// Its methods may be called from several goroutines (one at a time).
type Txn struct {
	s  *Store
	mu sync.Mutex
	b  *pebble.Batch // indexed: reads see the store and the writes
	// written holds what the transaction wrote, by "db/collection":
	// the keys and their texts (nil: deleted), for the writers that read
	// ahead while it commits, and the key filters.
	written map[string]map[string][]byte
	delta   map[string]int64           // documents added less removed, by "db/collection"
	colls   map[string]*CollectionInfo // the collections written, as they were
	locks   map[string]bool            // the documents it locked, "db/collection/key"
	done    bool
	using   int // readers of Use open: the batch is closed after the last
}

// Begin starts a transaction.
func (s *Store) Begin() (*Txn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.broken != nil {
		return nil, s.broken
	}
	return &Txn{s: s, b: s.db.NewIndexedBatch(), written: map[string]map[string][]byte{}, delta: map[string]int64{},
		colls: map[string]*CollectionInfo{}, locks: map[string]bool{}}, nil
}

// lockKey is the name of a document's lock.
func lockKey(db, coll, key string) string { return db + "/" + coll + "/" + key }

// lockedByTxn returns ErrTxnLocked when one of keys of a collection is
// locked by a transaction other than t (callers hold mu).
func (s *Store) lockedByTxn(t *Txn, db, coll string, keys []string) error {
	if len(s.locks) == 0 {
		return nil
	}
	for _, k := range keys {
		if owner, ok := s.locks[lockKey(db, coll, k)]; ok && owner != t {
			return fmt.Errorf("%w: %s/%s", ErrTxnLocked, coll, k)
		}
	}
	return nil
}

// writeInTxn is writeDocs in a transaction: the items are applied under
// the store's lock, after the batches being committed (so that reads of
// the store are current), into the transaction's batch.
func (s *Store) writeInTxn(t *Txn, db, coll string, n int, keys []string, stop bool, prep func(*CollectionInfo), one func(w *writer, info *CollectionInfo, i int) Result) ([]Result, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return nil, ErrTxnDone
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return nil, s.broken
	}
	info, ok := s.colls[db][coll]
	if !ok {
		return nil, ErrCollectionNotFound
	}
	if err := s.lockedByTxn(t, db, coll, keys); err != nil {
		return nil, err
	}
	s.drain()
	w := &writer{s: s, db: db, coll: coll, before: map[string][]byte{}, now: map[string]Doc{}, data: map[string][]byte{},
		raw: map[string][]byte{}, uniq: map[string]string{}, txn: t, idx: s.indexes[db+"/"+coll]}
	if prep != nil {
		prep(info)
	}
	out := make([]Result, n)
	for i := range out {
		out[i] = one(w, info, i)
		if stop && out[i].Err != nil {
			return out, nil // the items are dropped
		}
	}
	w.buf.flush(t.b, w.pre, w.keep)
	if t.b.Len() > MaxTxnBytes {
		// What the items wrote cannot be taken back out of the batch:
		// the transaction is over.
		t.abortLocked()
		return nil, fmt.Errorf("%w: its writes reach %d bytes (at most %d); it is aborted", ErrTxnSize, t.b.Len(), MaxTxnBytes)
	}
	k := db + "/" + coll
	if t.written[k] == nil {
		t.written[k] = map[string][]byte{}
	}
	t.colls[k] = info
	t.delta[k] += w.delta
	for key, data := range w.raw {
		t.written[k][key] = data
		t.lock(db, coll, key)
	}
	for key, d := range w.now {
		var data []byte
		if d != nil {
			data = w.data[key]
		}
		t.written[k][key] = data
		t.lock(db, coll, key)
	}
	return out, nil
}

// lock takes a document's lock (callers hold the store's mu).
func (t *Txn) lock(db, coll, key string) {
	lk := lockKey(db, coll, key)
	if !t.locks[lk] {
		t.locks[lk] = true
		if t.s.locks == nil {
			t.s.locks = map[string]*Txn{}
		}
		t.s.locks[lk] = t
	}
}

// unlock releases the transaction's locks (callers hold the store's mu).
func (t *Txn) unlock() {
	for lk := range t.locks {
		if t.s.locks[lk] == t {
			delete(t.s.locks, lk)
		}
	}
	t.locks = nil
}

// Commit writes the transaction's writes to the store, synced, all at
// once; on an error nothing is written and the transaction is over.
func (t *Txn) Commit() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return ErrTxnDone
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	defer t.abortLocked() // releases the locks and the batch whatever happens
	if s.broken != nil {
		return s.broken
	}
	for k, info := range t.colls {
		db, coll := splitCollectionKey(k)
		if cur := s.colls[db][coll]; cur == nil || cur.ID != info.ID {
			return fmt.Errorf("%w: %s", ErrTxnDrops, coll)
		}
	}
	s.drain()
	for k, d := range t.delta {
		db, coll := splitCollectionKey(k)
		s.addCount(t.b, db, coll, d)
	}
	undo := func() {
		for k, d := range t.delta {
			s.counts[k] -= d
		}
	}
	if err := s.checkSpace(int64(t.b.Len())); err != nil {
		undo()
		return err
	}
	if err := s.reserveIDs(); err != nil {
		undo()
		return err
	}
	if err := s.guarded(func() error { return t.b.Commit(pebble.Sync) }); err != nil {
		undo()
		s.broken = fmt.Errorf("the graph store failed to write, and takes no more writes until it is opened again: %w", err)
		return s.broken
	}
	// What it wrote, for the writers that read ahead meanwhile, and the
	// key filters.
	for k, keys := range t.written {
		db, coll := splitCollectionKey(k)
		rb := &recentBatch{db: db, coll: coll, done: true}
		for key, v := range keys {
			if v != nil {
				rb.keys, rb.values = append(rb.keys, key), append(rb.values, v)
			}
		}
		rb.written = len(rb.keys)
		for key, v := range keys {
			if v == nil {
				rb.keys, rb.values = append(rb.keys, key), append(rb.values, nil)
			}
		}
		s.filters[k].addKeys(rb.keys[:rb.written])
		s.revs[k] = s.newRev()
		s.applied++
		rb.gen = s.applied
		s.visible = s.applied
		if len(s.readers) > 0 {
			s.recent = append(s.recent, rb)
		}
	}
	s.committed.Broadcast()
	return nil
}

// Abort drops the transaction's writes.
func (t *Txn) Abort() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.abortLocked()
}

// abortLocked ends the transaction (callers hold t.mu and the store's mu).
func (t *Txn) abortLocked() {
	if t.done {
		return
	}
	t.done = true
	t.unlock()
	if t.using == 0 {
		t.b.Close()
	}
}

// InsertIf is Store.InsertIf in the transaction.
func (t *Txn) InsertIf(db, coll string, docs []any, mode OverwriteMode, keepNull, mergeObjects bool, pre Precondition) ([]Result, error) {
	return t.s.insert(t, db, coll, docs, nil, mode, keepNull, mergeObjects, false, pre)
}

// InsertAll is Store.InsertAll in the transaction: a failed document
// leaves the transaction as it was.
func (t *Txn) InsertAll(db, coll string, docs []any, mode OverwriteMode) (results []Result, committed bool, err error) {
	results, err = t.s.insert(t, db, coll, docs, nil, mode, true, true, true, Precondition{})
	if err != nil {
		return nil, false, err
	}
	for _, r := range results {
		if r.Err != nil {
			return results, false, nil
		}
	}
	return results, true, nil
}

// ModifyIf is Store.ModifyIf in the transaction.
func (t *Txn) ModifyIf(db, coll string, items []any, replace, keepNull, mergeObjects bool, pre Precondition) ([]Result, error) {
	return t.s.modify(t, db, coll, items, replace, keepNull, mergeObjects, pre)
}

// RemoveIf is Store.RemoveIf in the transaction.
func (t *Txn) RemoveIf(db, coll string, items []any, pre Precondition) ([]Result, error) {
	return t.s.remove(t, db, coll, items, pre)
}

// Document is Store.Document as the transaction sees the store.
func (t *Txn) Document(db, coll, key string) ([]byte, error) {
	if _, err := t.s.Collection(db, coll); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return nil, ErrTxnDone
	}
	return documentJSON(t.b, db, coll, key)
}

// Lookup is Store.Lookup as the transaction sees the store.
func (t *Txn) Lookup(db, coll string, items []any) ([]json.RawMessage, []error, error) {
	return lookup(t.s, db, coll, items, t.Document)
}

// Use runs fn with a reader of the store as the transaction sees it: its
// scans (Scan, IndexScan) see the transaction's writes as they are when
// each begins, fn's own among them (a query's UPSERT reads what its rows
// before wrote). The caller runs one request of a transaction at a time;
// an Abort meanwhile (its timeout) closes the batch after fn.
func (t *Txn) Use(fn func(r *Reader) error) error {
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		return ErrTxnDone
	}
	it, err := t.b.NewIter(nil)
	if err != nil {
		t.mu.Unlock()
		return err
	}
	t.using++
	t.mu.Unlock()
	r := &Reader{s: t.s, it: it}
	defer func() {
		r.Close()
		t.mu.Lock()
		t.using--
		if t.done && t.using == 0 {
			t.b.Close()
		}
		t.mu.Unlock()
	}()
	return fn(r)
}
