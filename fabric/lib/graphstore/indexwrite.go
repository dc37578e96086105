package graphstore

import "github.com/cockroachdb/pebble/v2"

// indexChange is what a document write does to one index: the entries
// it deletes and those it adds (encoded values).
type indexChange struct {
	ix       *Index
	del, add [][]byte
}

// indexDoc writes the index entries of a document changing from old to
// doc (either nil: an insert, a removal), after checking the unique
// indexes; on an error nothing is written.
func (w *writer) indexDoc(key string, old, doc Doc) error {
	if len(w.idx) == 0 {
		return nil
	}
	changes := make([]indexChange, 0, len(w.idx))
	for _, ix := range w.idx {
		var before, after [][]byte
		var err error
		if old != nil {
			if before, err = ix.entries(old); err != nil {
				return err
			}
		}
		if doc != nil {
			if after, err = ix.entries(doc); err != nil {
				return err
			}
		}
		c := indexChange{ix: ix}
		had := make(map[string]bool, len(before))
		for _, e := range before {
			had[string(e)] = true
		}
		has := make(map[string]bool, len(after))
		for _, e := range after {
			has[string(e)] = true
			if !had[string(e)] {
				c.add = append(c.add, e)
			}
		}
		for _, e := range before {
			if !has[string(e)] {
				c.del = append(c.del, e)
			}
		}
		if ix.Unique {
			for _, e := range c.add {
				if other, taken := w.uniqueTaken(ix, e, key); taken {
					return uniqueError(ix, other)
				}
			}
		}
		changes = append(changes, c)
	}
	for _, c := range changes {
		p := indexEntryPrefix(w.db, w.coll, c.ix.ID)
		for _, e := range c.del {
			_ = w.buf.Delete(entryKey(p, e, key), nil)
			if c.ix.Unique {
				w.uniq[string(p)+string(e)] = ""
			}
		}
		for _, e := range c.add {
			_ = w.buf.Set(entryKey(p, e, key), nil, nil)
			if c.ix.Unique {
				w.uniq[string(p)+string(e)] = key
			}
		}
	}
	return nil
}

func entryKey(prefix, enc []byte, key string) []byte {
	k := make([]byte, 0, len(prefix)+len(enc)+len(key))
	return append(append(append(k, prefix...), enc...), key...)
}

// uniqueTaken reports whether another document than key has the entry
// enc in the unique index ix, as the batch stands (the store has no batch
// of the collection being committed: writeDocs drained them).
func (w *writer) uniqueTaken(ix *Index, enc []byte, key string) (string, bool) {
	p := indexEntryPrefix(w.db, w.coll, ix.ID)
	full := string(p) + string(enc)
	if other, ok := w.uniq[full]; ok {
		return other, other != "" && other != key
	}
	it, err := w.reader().NewIter(&pebble.IterOptions{LowerBound: []byte(full), UpperBound: prefixEnd([]byte(full))})
	if err != nil {
		return "", false
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		other := string(it.Key()[len(full):])
		if other != key {
			if d, written := w.now[other]; written && d == nil {
				continue // deleted by this batch
			}
			return other, true
		}
	}
	return "", false
}
