package graphstore

import (
	"errors"
	"time"
)

// ErrClosed is the error of using a store that is closed.
var ErrClosed = errors.New("the graph store is closed")

// MaxExpiredPerRun bounds the documents one ExpireTTL removes from one
// collection (as ArangoDB's ttl.max-collection-removes does): a backlog
// goes over several runs.
const MaxExpiredPerRun = 10000

// ExpireTTL removes the documents whose ttl index says they expired by
// now: those whose indexed attribute, a time in seconds since the epoch
// or an ISO 8601 date string, lies at least the index's expireAfter
// seconds before now. It returns how many it removed.
func (s *Store) ExpireTTL(now time.Time) (int, error) {
	type ttlIndex struct {
		db, coll string
		ix       *Index
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return 0, ErrClosed
	}
	var list []ttlIndex
	for k, ixs := range s.indexes {
		for _, ix := range ixs {
			if ix.Type == IndexTTL {
				db, coll := splitCollectionKey(k)
				list = append(list, ttlIndex{db, coll, ix})
			}
		}
	}
	s.mu.RUnlock()
	removed := 0
	for _, t := range list {
		cutoff := now.Add(-time.Duration(t.ix.ExpireAfter * float64(time.Second)))
		keys, err := s.expired(t.db, t.coll, t.ix, cutoff)
		if err != nil {
			if errors.Is(err, ErrCollectionNotFound) || errors.Is(err, ErrIndexNotFound) {
				continue // dropped meanwhile
			}
			return removed, err
		}
		if len(keys) == 0 {
			continue
		}
		res, err := s.Remove(t.db, t.coll, keys)
		if err != nil {
			if errors.Is(err, ErrCollectionNotFound) {
				continue
			}
			return removed, err
		}
		for _, r := range res {
			if r.Err == nil {
				removed++
			}
		}
	}
	return removed, nil
}

// expired returns the keys of the documents of a ttl index whose time is
// at or before cutoff: numbers up to its seconds, then date strings up to
// its ISO 8601 text.
func (s *Store) expired(db, coll string, ix *Index, cutoff time.Time) ([]any, error) {
	r, err := s.NewReader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var keys []any
	collect := func(d Doc) bool {
		keys = append(keys, d["_key"])
		return len(keys) < MaxExpiredPerRun
	}
	secs := float64(cutoff.UnixNano()) / 1e9
	err = r.IndexScan(db, coll, ix.ID, nil, &Bound{Value: -1e308, Inclusive: true}, &Bound{Value: secs, Inclusive: true}, collect)
	if err != nil || len(keys) >= MaxExpiredPerRun {
		return keys, err
	}
	err = r.IndexScan(db, coll, ix.ID, nil, &Bound{Value: "", Inclusive: true}, &Bound{Value: cutoff.UTC().Format("2006-01-02T15:04:05.000Z"), Inclusive: true}, collect)
	return keys, err
}

// splitCollectionKey splits "db/collection".
func splitCollectionKey(k string) (db, coll string) {
	for i := 0; i < len(k); i++ {
		if k[i] == '/' {
			return k[:i], k[i+1:]
		}
	}
	return k, ""
}
