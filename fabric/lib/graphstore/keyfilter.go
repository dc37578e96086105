package graphstore

import (
	"strings"
	"sync"

	"github.com/bits-and-blooms/bloom/v3"
)

// A collection's key filter is an in-memory Bloom filter of every key it
// has held since the store opened (built by a scan on the first write):
// a bulk insert asks it first, and looks a key up in Pebble only when the
// filter says the key may exist. New keys, the common case of a load,
// then cost no Pebble seek. Removed keys stay in the filter (a false
// "may exist" costs one seek).

// keyFilter is a collection's filter: a series of Bloom filters, each
// sized for four times the keys of the one before, so that a growing
// collection needs no rescan and a key is tested against few filters;
// keys go to the newest. Being sized for the same rate of false
// positives, they have the same number of hash functions, so that a key
// is hashed once for all of them.
type keyFilter struct {
	mu       sync.RWMutex // writers test it outside the store's lock
	fs       []*bloom.BloomFilter
	capacity uint // of the newest
	added    uint // to the newest
}

// test reports whether key may be in the filter (callers hold mu).
func (kf *keyFilter) test(key string) bool {
	k := kf.fs[0].K()
	locs := bloom.Locations([]byte(key), k)
	for _, f := range kf.fs {
		if f.K() != k { // not with the estimates used here, but cheap to allow
			k = f.K()
			locs = bloom.Locations([]byte(key), k)
		}
		if f.TestLocations(locs) {
			return true
		}
	}
	return false
}

// filterFalsePositives is the rate of false "may exist" each filter is
// sized for.
const filterFalsePositives = 0.005

// add adds a key, starting a new filter when the newest is full (callers
// hold mu for writing).
func (kf *keyFilter) add(key []byte) {
	if kf.added >= kf.capacity {
		kf.capacity *= 4
		kf.fs = append(kf.fs, bloom.NewWithEstimates(kf.capacity, filterFalsePositives))
		kf.added = 0
	}
	kf.fs[len(kf.fs)-1].Add(key)
	kf.added++
}

// minFilterKeys is the smallest capacity a filter is sized for.
const minFilterKeys = 1 << 16

// maybeKeys returns the keys that may exist in a collection whose filter
// is kf (all of them when kf is nil: it could not be built). It needs not
// the store's lock: the filter holds at least the keys of every batch
// applied before the caller took kf.
func maybeKeys(kf *keyFilter, keys []string) []string {
	if kf == nil {
		return keys
	}
	kf.mu.RLock()
	defer kf.mu.RUnlock()
	var out []string
	for _, k := range keys {
		if kf.test(k) {
			out = append(out, k)
		}
	}
	return out
}

// keyFilter returns a collection's filter, building it by a scan of the
// keys the first time (callers hold mu).
func (s *Store) keyFilter(db, coll string) *keyFilter {
	name := db + "/" + coll
	if kf := s.filters[name]; kf != nil {
		return kf
	}
	capacity := max(2*uint(max(s.count(db, coll), 0)), minFilterKeys)
	kf := &keyFilter{fs: []*bloom.BloomFilter{bloom.NewWithEstimates(capacity, filterFalsePositives)}, capacity: capacity}
	err := s.each(documentPrefix(db, coll), func(k, _ []byte) bool {
		kf.add(k)
		return true
	})
	if err != nil {
		delete(s.filters, name)
		return nil
	}
	// And the keys of the batches being committed, which the scan may
	// not have seen (they are all in recent).
	for _, rb := range s.recent {
		if rb.db == db && rb.coll == coll {
			for _, k := range rb.keys {
				kf.add([]byte(k))
			}
		}
	}
	s.filters[name] = kf
	return kf
}

// addKeys adds the keys a batch wrote to the filter (nil: none). Callers
// need not hold the store's lock, but must add a batch's keys before
// marking it committed: until then, writers take its keys from recent.
func (kf *keyFilter) addKeys(keys []string) {
	if kf == nil {
		return
	}
	kf.mu.Lock()
	defer kf.mu.Unlock()
	for _, k := range keys {
		kf.add([]byte(k))
	}
}

// dropFilters forgets the filters of a collection, or of every collection
// of a database when coll is empty (callers hold mu).
func (s *Store) dropFilters(db, coll string) {
	if coll != "" {
		delete(s.filters, db+"/"+coll)
		return
	}
	for name := range s.filters {
		if strings.HasPrefix(name, db+"/") {
			delete(s.filters, name)
		}
	}
}
