package graphstore

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// writer is a batch of document writes to one collection: it knows what
// the batch's keys held before it (read in one pass) and what it wrote.
type writer struct {
	s        *Store
	b        *pebble.Batch
	buf      writeBuffer // the documents' writes, in key order at commit
	pre      []kvOp      // writes sorted before the lock (see insert)
	keep     func(kvOp) bool
	db, coll string
	before   map[string][]byte // stored values of the keys read ahead (nil: none)
	now      map[string]Doc    // written by this batch (nil: deleted)
	data     map[string][]byte // the texts of now's documents
	raw      map[string][]byte // written by this batch as text (InsertLines)
	delta    int64             // documents added less removed
	idx      []*Index          // the collection's secondary indexes
	uniq     map[string]string // unique entries this batch wrote (key) or deleted ("")
	txn      *Txn              // the transaction the batch is part of (nil: none)
}

// reader is what the writer reads stored records through: the store, or
// its transaction's batch (which sees the store and the transaction's
// writes).
func (w *writer) reader() pebble.Reader {
	if w.txn != nil {
		return w.txn.b
	}
	return w.s.db
}

// old returns what key holds as the batch stands, or ErrDocumentNotFound.
func (w *writer) old(key string) (Doc, error) {
	if d, ok := w.now[key]; ok {
		if d == nil {
			return nil, ErrDocumentNotFound
		}
		return d, nil
	}
	if data, ok := w.raw[key]; ok {
		return decodeStored(w.coll, key, data)
	}
	if v, read := w.before[key]; read {
		if v == nil {
			return nil, ErrDocumentNotFound
		}
		return decodeStored(w.coll, key, v)
	}
	return getDoc(w.reader(), w.db, w.coll, key) // not read ahead (a generated key)
}

// write puts a document that replaces old (nil: a new one) with its
// records in the order, edge and secondary indexes; nothing is written
// when a unique index refuses it.
func (w *writer) write(info *CollectionInfo, key string, old, doc Doc, data []byte) error {
	if err := w.indexDoc(key, old, doc); err != nil {
		return err
	}
	w.put(key, doc, data)
	if old != nil {
		_ = w.buf.Delete(orderKey(w.db, w.coll, revOf(old), key), nil)
	}
	_ = w.buf.Set(orderKey(w.db, w.coll, revOf(doc), key), nil, nil)
	if info.Type == EdgeCollection {
		if old != nil {
			indexEdge(&w.buf, w.db, w.coll, old, true)
		}
		indexEdge(&w.buf, w.db, w.coll, doc, false)
	}
	return nil
}

// remove deletes a document (old, as stored) and its index records.
func (w *writer) remove(info *CollectionInfo, key string, old Doc) {
	_ = w.indexDoc(key, old, nil) // removing entries checks nothing
	w.del(key)
	_ = w.buf.Delete(orderKey(w.db, w.coll, revOf(old), key), nil)
	if info.Type == EdgeCollection {
		indexEdge(&w.buf, w.db, w.coll, old, true)
	}
}

// revOf is a document's revision.
func revOf(d Doc) string {
	rev, _ := d["_rev"].(string)
	return rev
}

// put writes a document.
func (w *writer) put(key string, doc Doc, data []byte) {
	_ = w.buf.Set(docKey(w.db, w.coll, key), data, nil)
	w.now[key], w.data[key] = doc, data
}

// del deletes a document.
func (w *writer) del(key string) {
	_ = w.buf.Delete(docKey(w.db, w.coll, key), nil)
	w.now[key] = nil
}

// readAhead reads the stored values of keys: those of seek (the keys that
// may exist) in one pass of an iterator, in key order, its Bloom filters
// skipping the keys that are not there; the others are known new.
func (w *writer) readAhead(keys, seek []string) error {
	for _, k := range keys {
		w.before[k] = nil
	}
	sorted := slices.Clone(seek)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	prefix := documentPrefix(w.db, w.coll)
	// UseL6Filters: most of a collection lives in the last level, and
	// most keys a bulk insert looks up are new.
	it, err := w.s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix), UseL6Filters: true})
	if err != nil {
		return err
	}
	defer it.Close()
	for _, k := range sorted {
		full := docKey(w.db, w.coll, k)
		if it.SeekPrefixGE(full) && bytes.Equal(it.Key(), full) {
			w.before[k] = slices.Clone(it.Value())
		}
	}
	return it.Error()
}

// recentBatch is what a document batch wrote, by its gen: keys and their
// values (nil: deleted).
type recentBatch struct {
	gen      uint64
	db, coll string
	keys     []string
	values   [][]byte
	all      bool // the collection was truncated
	done     bool // committed
	// filter is the collection's key filter when the batch was applied,
	// which the first written of keys go to before it is committed.
	filter  *keyFilter
	written int
}

// writeDocs makes one write per item (one) in one batch and commits it
// with the change of the collection's count, then returns once the batch
// is durable.
//
// Most of the work happens outside the store's lock, so that concurrent
// batches share the CPUs: keys, the keys the items name, are read ahead
// in one pass, and prep (when not nil) prepares the items. Then, under
// the lock, what batches applied meanwhile wrote to those keys is taken
// from their records (recent), each item is applied (one), and the batch
// gets its gen, so that each batch reads what the ones before wrote.
// The batch is committed after the lock is released: at once, unless a
// batch still being committed wrote one of its keys (then after it; the
// store's counters are written so that they never conflict). The
// write-ahead log is synced last, so that concurrent batches share one
// sync (group commit). With stop, a failed item drops the whole batch
// (its results so far are returned).
func (s *Store) writeDocs(t *Txn, db, coll string, n int, keys []string, stop bool, prep func(*CollectionInfo), one func(w *writer, info *CollectionInfo, i int) Result) ([]Result, error) {
	if t != nil {
		return s.writeInTxn(t, db, coll, n, keys, stop, prep, one)
	}
	s.mu.Lock()
	if s.broken != nil {
		s.mu.Unlock()
		return nil, s.broken
	}
	info, ok := s.colls[db][coll]
	if !ok {
		s.mu.Unlock()
		return nil, ErrCollectionNotFound
	}
	g0 := s.visible
	s.readers[g0]++
	kf := s.keyFilter(db, coll)
	s.mu.Unlock()
	seek := maybeKeys(kf, keys) // the keys that may exist: the others are new
	w := &writer{s: s, db: db, coll: coll, before: make(map[string][]byte, len(keys)), now: map[string]Doc{}, data: map[string][]byte{}, raw: make(map[string][]byte, len(keys)), uniq: map[string]string{}}
	defer func() {
		if w.b != nil {
			w.b.Close()
		}
	}()
	err := w.readAhead(keys, seek)
	if err == nil && prep != nil {
		prep(info)
	}
	s.mu.Lock()
	if cur := s.colls[db][coll]; err == nil && (cur == nil || cur.ID != info.ID) {
		err = ErrCollectionNotFound // dropped or renamed meanwhile (a change of properties publishes a copy)
	}
	if err == nil && s.broken != nil {
		err = s.broken
	}
	var after uint64 // the last batch being committed that wrote one of the keys
	if err == nil {
		w.idx = s.indexes[db+"/"+coll]
		if hasUnique(w.idx) {
			// A unique index is checked against what is stored: no batch
			// of the store may be on its way then.
			s.drain()
		}
		after = w.catchUp(g0)
		err = s.lockedByTxn(nil, db, coll, keys)
	}
	if s.readers[g0]--; s.readers[g0] == 0 {
		delete(s.readers, g0)
	}
	s.prune()
	var out []Result
	var rb *recentBatch
	if err == nil {
		out, rb, err = s.applyDocs(w, info, n, stop, one)
	}
	if rb != nil {
		s.revs[db+"/"+coll] = s.newRev()
	}
	s.mu.Unlock()
	if err != nil || rb == nil {
		return out, err
	}
	if err := s.commit(w, rb, after); err != nil {
		return nil, err
	}
	return out, s.guarded(func() error { return s.db.LogData(nil, pebble.Sync) })
}

// catchUp takes what the batches applied since gen g0 wrote to the keys
// read ahead, and returns the last of them that is not committed yet, if
// any (callers hold mu).
func (w *writer) catchUp(g0 uint64) (after uint64) {
	for _, rb := range w.s.recent {
		if rb.gen <= g0 || rb.db != w.db || rb.coll != w.coll {
			continue
		}
		if rb.all {
			for k := range w.before {
				w.before[k] = nil
			}
			continue
		}
		hit := false
		for i, k := range rb.keys {
			if _, read := w.before[k]; read {
				hit = true
				w.before[k] = rb.values[i]
			}
		}
		if hit && !rb.done {
			after = rb.gen
		}
	}
	return after
}

// prune drops the recent batches no writer needs: committed, and applied
// before every reader read (callers hold mu).
func (s *Store) prune() {
	oldest := s.visible
	for g := range s.readers {
		oldest = min(oldest, g)
	}
	i := 0
	for i < len(s.recent) && s.recent[i].gen <= oldest {
		i++
	}
	if i > 0 {
		n := copy(s.recent, s.recent[i:])
		clear(s.recent[n:])
		s.recent = s.recent[:n]
	}
}

// applyDocs applies the items, builds the batch and numbers it (callers
// hold mu); rb is nil when the batch is dropped.
func (s *Store) applyDocs(w *writer, info *CollectionInfo, n int, stop bool, one func(w *writer, info *CollectionInfo, i int) Result) (out []Result, rb *recentBatch, err error) {
	out = make([]Result, n)
	for i := range out {
		out[i] = one(w, info, i)
		if stop && out[i].Err != nil {
			return out, nil, nil // the batch is dropped
		}
	}
	w.b = s.db.NewBatch(pebble.WithInitialSizeBytes(w.buf.size(w.pre) + 256))
	w.buf.flush(w.b, w.pre, w.keep)
	s.addCount(w.b, w.db, w.coll, w.delta)
	grows := int64(w.b.Len())
	if len(w.data) == 0 && len(w.raw) == 0 {
		grows = 0 // deletions only: what frees space
	}
	if err := s.checkSpace(grows); err != nil {
		s.counts[w.db+"/"+w.coll] -= w.delta // not written
		return nil, nil, err
	}
	if err := s.reserveIDs(); err != nil {
		s.counts[w.db+"/"+w.coll] -= w.delta // not written
		return nil, nil, err
	}
	// What the batch wrote: the keys it wrote, then those it deleted.
	rb = &recentBatch{db: w.db, coll: w.coll, keys: make([]string, 0, len(w.now)+len(w.raw))}
	for k, v := range w.raw {
		rb.keys, rb.values = append(rb.keys, k), append(rb.values, v)
	}
	for k, d := range w.now {
		if d != nil {
			rb.keys, rb.values = append(rb.keys, k), append(rb.values, w.data[k])
		}
	}
	rb.filter, rb.written = s.filters[w.db+"/"+w.coll], len(rb.keys)
	for k, d := range w.now {
		if d == nil {
			rb.keys, rb.values = append(rb.keys, k), append(rb.values, nil)
		}
	}
	s.applied++
	rb.gen = s.applied
	s.pending[rb.gen] = rb
	s.recent = append(s.recent, rb)
	return out, rb, nil
}

// commit commits a batch applied as rb, once the batches up to gen after
// are committed.
func (s *Store) commit(w *writer, rb *recentBatch, after uint64) error {
	rb.filter.addKeys(rb.keys[:rb.written])
	if after > 0 {
		s.mu.Lock()
		for s.visible < after && s.broken == nil {
			s.committed.Wait()
		}
		s.mu.Unlock()
	}
	err := s.guarded(func() error { return w.b.Commit(pebble.NoSync) })
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && s.broken == nil {
		s.broken = fmt.Errorf("the graph store failed to write, and takes no more writes until it is opened again: %w", err)
	}
	delete(s.pending, rb.gen)
	rb.done = true
	s.visible = s.applied
	for g := range s.pending {
		s.visible = min(s.visible, g-1)
	}
	s.prune()
	s.committed.Broadcast()
	if err != nil {
		return s.broken
	}
	return nil
}

// drain waits until no batch is being committed (callers hold mu): what
// drops or truncates collections must not be overtaken by a batch.
func (s *Store) drain() {
	for len(s.pending) > 0 {
		s.committed.Wait()
	}
}

// kvWriter is what writes go to: a batch, or the sorted buffer of a
// document batch (writeBuffer).
type kvWriter interface {
	Set(key, value []byte, o *pebble.WriteOptions) error
	Delete(key []byte, o *pebble.WriteOptions) error
}

// writeBuffer holds a document batch's writes so that they reach the
// batch in key order: the memtable takes sorted keys much faster than
// random ones (edge keys are hashes).
type writeBuffer struct{ ops []kvOp }

type kvOp struct {
	key, value []byte
	seq        int32 // the order of writes to one key
	item       int32 // the item of a document batch the write is for
	del        bool
}

func (w *writeBuffer) Set(key, value []byte, _ *pebble.WriteOptions) error {
	w.ops = append(w.ops, kvOp{key: key, value: value, seq: int32(len(w.ops))})
	return nil
}

func (w *writeBuffer) Delete(key []byte, _ *pebble.WriteOptions) error {
	w.ops = append(w.ops, kvOp{key: key, del: true, seq: int32(len(w.ops))})
	return nil
}

// sort orders the buffered writes by key (writes of one key in the order
// they were made).
func (w *writeBuffer) sort() { sortOps(w.ops) }

// size is about the bytes of a batch holding the buffered writes and pre.
func (w *writeBuffer) size(pre []kvOp) int {
	n := 0
	for _, ops := range [][]kvOp{w.ops, pre} {
		for _, op := range ops {
			n += len(op.key) + len(op.value) + 12
		}
	}
	return n
}

// flush writes the buffered writes to b in key order, merged with pre
// (writes sorted beforehand, of which only those keep reports true): on
// equal keys pre's come first, as they were the first writes of their
// keys.
func (w *writeBuffer) flush(b *pebble.Batch, pre []kvOp, keep func(op kvOp) bool) {
	w.sort()
	put := func(op kvOp) {
		if op.del {
			_ = b.Delete(op.key, nil)
		} else {
			_ = b.Set(op.key, op.value, nil)
		}
	}
	i, j := 0, 0
	for i < len(pre) || j < len(w.ops) {
		if i < len(pre) && !keep(pre[i]) {
			i++
			continue
		}
		if j >= len(w.ops) || i < len(pre) && bytes.Compare(pre[i].key, w.ops[j].key) <= 0 {
			put(pre[i])
			i++
		} else {
			put(w.ops[j])
			j++
		}
	}
	w.ops = nil
}
