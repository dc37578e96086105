// Package cfxarrow evaluates CFXQL queries (package cfxql) over Apache
// Arrow record batches, vectorised: each comparison runs over a whole
// column into a bitmap, and the bitmaps combine with and/or. It agrees
// with cfxql's Match over the same rows as dicts, and falls back to
// Match's semantics (cfxql.Cmp.Match) for the types and operators it has
// no kernel for.
//
// A Query is a cfxql.Query with the Arrow methods: Mask, Filter,
// FilterSource, Selector and KeepRowGroup (a lazy.Predicate).
package cfxarrow

import (
	"time"

	"github.com/fabricops/fabric/fabric/lib/cfxql"
)

// Query is a parsed query that also filters Arrow data. It is immutable
// and safe for concurrent use; the methods of cfxql.Query (Match,
// Columns, Projection, Outputs ...) are promoted.
type Query struct {
	*cfxql.Query
}

// Parse parses a query as cfxql.Parse does. Errors are
// *cfxql.SyntaxError.
func Parse(src string) (*Query, error) {
	q, err := cfxql.Parse(src)
	if err != nil {
		return nil, err
	}
	return &Query{q}, nil
}

// MustParse is Parse for queries known to be valid; it panics on an
// error.
func MustParse(src string) *Query { return &Query{cfxql.MustParse(src)} }

// New returns the Arrow evaluation of an already parsed query.
func New(q *cfxql.Query) *Query { return &Query{q} }

// WithNow returns a copy of q that evaluates relative times against now
// (see cfxql.Query.WithNow).
func (q *Query) WithNow(now time.Time) *Query { return &Query{q.Query.WithNow(now)} }
