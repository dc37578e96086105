package graphstore

import (
	"bytes"
	"errors"
	"slices"
	"strconv"

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
	before   map[string][]byte // stored values of the keys read ahead
	read     map[string]bool   // the keys read ahead
	now      map[string]Doc    // written by this batch (nil: deleted)
	raw      map[string][]byte // written by this batch as text (InsertLines)
	delta    int64             // documents added less removed
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
		return DecodeDoc(data)
	}
	if w.read[key] {
		v, ok := w.before[key]
		if !ok {
			return nil, ErrDocumentNotFound
		}
		return DecodeDoc(v)
	}
	return getDoc(w.s.db, docKey(w.db, w.coll, key)) // not read ahead (a generated key)
}

// put writes a document.
func (w *writer) put(key string, doc Doc, data []byte) {
	_ = w.buf.Set(docKey(w.db, w.coll, key), data, nil)
	w.now[key] = doc
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
		w.read[k] = true
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

// recentBatch is the keys a document batch wrote, by its gen.
type recentBatch struct {
	gen      uint64
	db, coll string
	keys     []string
	all      bool // the collection was truncated
}

// writeDocs makes one write per item (one) in one batch and commits it
// with the id counter and the collection's count, then returns once the
// batch is durable.
//
// Most of the work happens outside the store's lock, so that concurrent
// batches share the CPUs: keys, the keys the items name, are read ahead
// in one pass, and prep (when not nil) prepares the items. Then, under
// the lock, the keys that batches applied meanwhile wrote are read again,
// each item is applied (one), and the batch is committed, in the order of
// the lock, so that each batch reads what the ones before wrote. The
// write-ahead log is synced after the lock is released, so that
// concurrent batches share one sync (group commit). With stop, a failed
// item drops the whole batch (its results so far are returned).
func (s *Store) writeDocs(db, coll string, n int, keys []string, stop bool, prep func(*CollectionInfo), one func(w *writer, info *CollectionInfo, i int) Result) ([]Result, error) {
	s.mu.Lock()
	info, ok := s.colls[db][coll]
	if !ok {
		s.mu.Unlock()
		return nil, ErrCollectionNotFound
	}
	g0 := s.gen
	s.readers[g0]++
	seek := s.maybeKeys(db, coll, keys) // the keys that may exist: the others are new
	s.mu.Unlock()
	w := &writer{s: s, db: db, coll: coll, before: map[string][]byte{}, read: map[string]bool{}, now: map[string]Doc{}, raw: map[string][]byte{}}
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
	if err == nil && s.colls[db][coll] != info {
		err = ErrCollectionNotFound // dropped meanwhile
	}
	if err == nil {
		err = w.catchUp(g0)
	}
	if s.readers[g0]--; s.readers[g0] == 0 {
		delete(s.readers, g0)
	}
	s.prune()
	var out []Result
	committed := false
	if err == nil {
		out, committed, err = s.applyDocs(w, info, n, stop, one)
	}
	s.mu.Unlock()
	if err != nil || !committed {
		return out, err
	}
	return out, s.db.LogData(nil, pebble.Sync)
}

// catchUp reads again the keys read ahead that batches applied since gen
// g0 wrote (callers hold mu).
func (w *writer) catchUp(g0 uint64) error {
	for _, rb := range w.s.recent {
		if rb.gen <= g0 || rb.db != w.db || rb.coll != w.coll {
			continue
		}
		if rb.all {
			clear(w.before)
			continue
		}
		for _, k := range rb.keys {
			if !w.read[k] {
				continue
			}
			v, closer, err := w.s.db.Get(docKey(w.db, w.coll, k))
			switch {
			case errors.Is(err, pebble.ErrNotFound):
				delete(w.before, k)
			case err != nil:
				return err
			default:
				w.before[k] = slices.Clone(v)
				closer.Close()
			}
		}
	}
	return nil
}

// prune drops the recent batches no writer needs (callers hold mu).
func (s *Store) prune() {
	if len(s.readers) == 0 {
		s.recent = s.recent[:0]
		return
	}
	oldest := s.gen
	for g := range s.readers {
		oldest = min(oldest, g)
	}
	i := 0
	for i < len(s.recent) && s.recent[i].gen <= oldest {
		i++
	}
	s.recent = append(s.recent[:0], s.recent[i:]...)
}

// applyDocs applies the items and commits the batch (callers hold mu).
func (s *Store) applyDocs(w *writer, info *CollectionInfo, n int, stop bool, one func(w *writer, info *CollectionInfo, i int) Result) (out []Result, committed bool, err error) {
	out = make([]Result, n)
	for i := range out {
		out[i] = one(w, info, i)
		if stop && out[i].Err != nil {
			return out, false, nil // the batch is dropped
		}
	}
	w.b = s.db.NewBatch(pebble.WithInitialSizeBytes(w.buf.size(w.pre) + 256))
	w.buf.flush(w.b, w.pre, w.keep)
	s.addCount(w.b, w.db, w.coll, w.delta)
	_ = w.b.Set([]byte(keyNextID), []byte(strconv.FormatUint(s.nextID.Load(), 10)), nil)
	if err := w.b.Commit(pebble.NoSync); err != nil {
		s.counts[w.db+"/"+w.coll] -= w.delta // not written
		return nil, false, err
	}
	s.gen++
	// The keys the batch wrote, then those it deleted.
	keys := make([]string, 0, len(w.now)+len(w.raw))
	for k := range w.raw {
		keys = append(keys, k)
	}
	for k, d := range w.now {
		if d != nil {
			keys = append(keys, k)
		}
	}
	written := len(keys)
	for k, d := range w.now {
		if d == nil {
			keys = append(keys, k)
		}
	}
	s.addKeys(w.db, w.coll, keys[:written])
	if len(s.readers) > 0 {
		s.recent = append(s.recent, recentBatch{gen: s.gen, db: w.db, coll: w.coll, keys: keys})
	}
	return out, true, nil
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
// they were made). The writes are first split by their key's first byte
// (the kind of record: documents, each edge index), and each part sorted
// alone: fewer comparisons, and an index written in its order (a load
// sorted by _from) is sorted in one pass.
func (w *writeBuffer) sort() {
	var count [256]int
	for _, op := range w.ops {
		count[firstByte(op.key)]++
	}
	parts := 0
	for _, n := range count {
		if n > 0 {
			parts++
		}
	}
	if parts > 1 {
		var start [256]int
		for i, n := 1, 0; i < 256; i++ {
			n += count[i-1]
			start[i] = n
		}
		bounds := start
		out := make([]kvOp, len(w.ops))
		for _, op := range w.ops {
			b := firstByte(op.key)
			out[start[b]] = op
			start[b]++
		}
		w.ops = out
		for b := range 256 {
			if count[b] > 1 {
				sortOps(out[bounds[b] : bounds[b]+count[b]])
			}
		}
		return
	}
	sortOps(w.ops)
}

func firstByte(key []byte) byte {
	if len(key) == 0 {
		return 0
	}
	return key[0]
}

func sortOps(ops []kvOp) {
	slices.SortFunc(ops, func(x, y kvOp) int {
		if c := bytes.Compare(x.key, y.key); c != 0 {
			return c
		}
		return int(x.seq - y.seq)
	})
}

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
