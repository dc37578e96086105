// Package cfxql is the filter-expression language (CFXQL) of DOMAIN.md:
// a parser with positioned errors and the evaluator over dicts (Match).
// The vectorised evaluator over Arrow record batches, which agrees with
// Match, is package cfxarrow: this one links no Arrow, so that programs
// that only parse and match queries stay small. It reads the parsed
// condition through Query.Cond and the Node types.
//
// A query is a condition, or "*" for every row, optionally followed by a
// GET projection:
//
//	device_category is 'SWITCH' and (severity is not in ['INFO','DEBUG'] or status != 'CLOSED') GET device_category, status as 'Incident Status'
//
// Conditions compare a column with literals (strings, numbers, true,
// false, lists), test nulls, match text and regexes, and place times
// before, after or during absolute or relative times; they combine with
// and, or, not and parentheses (and binds tighter than or). Keywords are
// case-insensitive; a column whose name is a keyword, or has characters
// other than letters, digits, '_' and '.', is written in backquotes.
//
// Semantics: numbers compare numerically (a numeric string against a
// number is converted), strings lexically, times as instants; = with a
// list is membership. Every comparison with a null is false, the negated
// ones (!=, not in, !~ ...) included; only the null checks see nulls.
// Text operators compare the text form of non-string values. Time
// operators read times, RFC 3339 and ISO 8601 strings (UTC when they have
// no zone) and numbers (epoch seconds, or milliseconds above 1e11).
// Relative times (now, today, -10 days, this month) are resolved against
// the evaluation's now, in its location. Before and after compare with an
// instant (a calendar period's start); during takes a period (today, this
// month, a date, -2 hours: from then to now) or 'A' to 'B', B included
// (a date B up to its end).
package cfxql

import (
	"fmt"
	"time"
)

// SyntaxError is a parse error at a 1-based column (in characters) of the
// query.
type SyntaxError struct {
	Col int
	Msg string
}

// Error renders the error as "col 14: expected a value after 'in'".
func (e *SyntaxError) Error() string { return fmt.Sprintf("col %d: %s", e.Col, e.Msg) }

// Column is one column of a GET projection.
type Column struct {
	Name  string
	Alias string // "" when not renamed
}

// Query is a parsed query. It is immutable and safe for concurrent use.
type Query struct {
	src  string
	now  time.Time
	root Node
	proj []Column
}

// Parse parses a query: a condition, "*", or either followed by GET.
// Errors are *SyntaxError.
func Parse(src string) (*Query, error) {
	root, proj, err := parseQuery(src)
	if err != nil {
		return nil, err
	}
	return &Query{src: src, root: root, proj: proj}, nil
}

// MustParse is Parse for queries known to be valid; it panics on an
// error.
func MustParse(src string) *Query {
	q, err := Parse(src)
	if err != nil {
		panic(err)
	}
	return q
}

// String returns the query's source text.
func (q *Query) String() string { return q.src }

// Canonical returns the query in a canonical syntax: symbolic operators,
// bracketed lists, single-quoted strings, times quoted, parentheses only
// where needed. It parses back to an equivalent query with the same
// canonical form.
func (q *Query) Canonical() string {
	s := canonical(q.root)
	if q.proj != nil {
		s += " GET "
		for i, c := range q.proj {
			if i > 0 {
				s += ", "
			}
			s += quoteName(c.Name)
			if c.Alias != "" {
				s += " as " + quoteString(c.Alias)
			}
		}
	}
	return s
}

// WithNow returns a copy of q that evaluates relative times (now, today,
// -10 days ...) against now, in now's location. Without it they are
// resolved against time.Now at each evaluation.
func (q *Query) WithNow(now time.Time) *Query { c := *q; c.now = now; return &c }

// Projection returns the GET columns (nil without GET).
func (q *Query) Projection() []Column {
	if q.proj == nil {
		return nil
	}
	return append([]Column(nil), q.proj...)
}

// Columns returns the names of the columns the condition reads, each
// once, in order of appearance (not the GET columns).
func (q *Query) Columns() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range columns(q.root, nil) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// MatchesAll reports whether the condition is "*" (every row matches).
func (q *Query) MatchesAll() bool {
	_, ok := q.root.(*All)
	return ok
}

// Cond returns the root of the condition (an *All for "*"), for
// evaluators outside this package.
func (q *Query) Cond() Node { return q.root }

// Now returns the time relative times are resolved against: WithNow's,
// else time.Now(). An evaluation over many rows or batches calls it once,
// so that they all see the same now.
func (q *Query) Now() time.Time {
	if q.now.IsZero() {
		return time.Now()
	}
	return q.now
}

// Outputs returns the columns a GET keeps, by their names in the input
// (from) and in the output (to); nil, nil without GET (every column).
func (q *Query) Outputs() (from, to []string) {
	for _, c := range q.proj {
		from = append(from, c.Name)
		if c.Alias != "" {
			to = append(to, c.Alias)
		} else {
			to = append(to, c.Name)
		}
	}
	return from, to
}
