package graphstore

import "github.com/cockroachdb/pebble/v2"

// Bound is one end of an index range: a value, and whether entries equal
// to it are in the range.
type Bound struct {
	Value     any
	Inclusive bool
}

// IndexScan calls fn with the documents of coll whose entries in the
// index id start with the values eq and, on the next field, lie between
// lo and hi (nil: unbounded), in the index's order, until fn returns
// false. A document that has several entries in range (an array index)
// comes once.
func (r *Reader) IndexScan(db, coll, id string, eq []any, lo, hi *Bound, fn func(Doc) bool) error {
	if err := r.collection(db, coll); err != nil {
		return err
	}
	ix, err := r.s.Index(db, coll, id)
	if err != nil {
		return err
	}
	base := indexEntryPrefix(db, coll, ix.ID)
	prefix := append([]byte(nil), base...)
	for _, v := range eq {
		prefix = appendValue(prefix, v)
	}
	start, end := prefix, prefixEnd(prefix)
	if lo != nil {
		start = appendValue(append([]byte(nil), prefix...), lo.Value)
		if !lo.Inclusive {
			start = prefixEnd(start)
		}
	}
	if hi != nil {
		end = appendValue(append([]byte(nil), prefix...), hi.Value)
		if hi.Inclusive {
			end = prefixEnd(end)
		}
	}
	entries, err := r.it.Clone(pebble.CloneOptions{IterOptions: &pebble.IterOptions{LowerBound: start, UpperBound: end}, RefreshBatchView: true})
	if err != nil {
		return err
	}
	defer entries.Close()
	docs, err := r.clone(documentPrefix(db, coll))
	if err != nil {
		return err
	}
	defer docs.Close()
	var seen map[string]bool
	if ix.Expands() {
		seen = map[string]bool{}
	}
	for entries.First(); entries.Valid(); entries.Next() {
		rest := entries.Key()[len(base):]
		for range ix.paths {
			n := skipValue(rest)
			if n < 0 {
				rest = nil
				break
			}
			rest = rest[n:]
		}
		if len(rest) == 0 {
			continue
		}
		key := string(rest)
		if seen != nil {
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		full := docKey(db, coll, key)
		if !docs.SeekPrefixGE(full) || string(docs.Key()) != string(full) {
			continue
		}
		d, err := decodeStored(coll, key, docs.Value())
		if err != nil {
			return err
		}
		if !fn(d) {
			break
		}
	}
	if err := entries.Error(); err != nil {
		return err
	}
	return docs.Error()
}
