package graphstore

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// ErrConflict is the error of a write whose revision precondition
// failed: the document's revision is not the one the request named
// (If-Match, or a _rev with ignoreRevs=false). The write changes nothing;
// its Result carries the document's current _key, _id and _rev.
var ErrConflict = errors.New("conflict, _rev values do not match")

// Precondition is what a replace, update, delete (or an insert that
// overwrites) checks of each document it would change. The check is made
// under the store's lock, in the same step as the write (see writeDocs),
// so that no other write comes between them: of concurrent writes naming
// the same revision, one wins.
//
// The zero Precondition checks nothing and costs nothing.
type Precondition struct {
	// IfMatch is the revision the document must have (the If-Match header
	// of a single-document request); "" checks none. It takes precedence
	// over an item's _rev.
	IfMatch string
	// Revs makes an item's _rev, when it has a non-empty one, the revision
	// the document must have (ignoreRevs=false).
	Revs bool
	// VersionAttribute names a top-level attribute for external
	// versioning: a replace or update (and an insert that would replace or
	// update an existing document) is only made when the item's value of
	// the attribute is higher than the stored document's, both taken as
	// whole numbers (rounded down). When it is not higher, nothing is
	// written and the result is the stored document, as ArangoDB answers
	// (no error). When either value is missing, not a number or negative,
	// the write is made.
	VersionAttribute string
}

// revision returns the revision the document item names must have, or "".
func (p *Precondition) revision(item Doc) string {
	if p.IfMatch != "" {
		return p.IfMatch
	}
	if p.Revs && item != nil {
		if r, ok := item["_rev"].(string); ok {
			return r
		}
	}
	return ""
}

// conflict returns ErrConflict's result when old, the stored document
// key, fails the revision precondition for item; ok is false then.
func (p *Precondition) conflict(coll, key string, old, item Doc) (res Result, ok bool) {
	want := p.revision(item)
	if want == "" {
		return Result{}, true
	}
	rev, _ := old["_rev"].(string)
	if rev == want {
		return Result{}, true
	}
	return Result{Err: ErrConflict, Key: key, ID: coll + "/" + key, Rev: rev}, false
}

// stale returns the result of a write that external versioning skips
// (the stored document, unchanged, as both old and new), and whether it
// is skipped: item's version is not higher than old's.
func (p *Precondition) stale(coll, key string, old, item Doc) (res Result, skip bool) {
	if p.VersionAttribute == "" {
		return Result{}, false
	}
	given, ok := versionOf(item[p.VersionAttribute])
	if !ok {
		return Result{}, false
	}
	stored, ok := versionOf(old[p.VersionAttribute])
	if !ok || given > stored {
		return Result{}, false
	}
	rev, _ := old["_rev"].(string)
	return Result{Key: key, ID: coll + "/" + key, Rev: rev, OldRev: rev, New: old, Old: old}, true
}

// versionOf reads an external version: a number that is not negative,
// rounded down to a whole number (false for anything else).
func versionOf(v any) (uint64, bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return n, true
		}
		g, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, false
		}
		f = g
	case float64:
		f = x
	case int:
		f = float64(x)
		if x >= 0 {
			return uint64(x), true
		}
	case int64:
		f = float64(x)
		if x >= 0 {
			return uint64(x), true
		}
	case uint64:
		return x, true
	default:
		return 0, false
	}
	if math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if f >= math.MaxUint64 {
		return math.MaxUint64, true
	}
	return uint64(math.Floor(f)), true
}
