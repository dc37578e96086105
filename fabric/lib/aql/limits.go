package aql

import (
	"fmt"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// Limits fence what one tenant's queries may use of the process they
// share with other tenants. A zero field takes its default (DefaultLimits).
type Limits struct {
	// QueryBytes bounds the text of a query.
	QueryBytes int
	// Nesting bounds how deeply a query's expressions nest (ArangoDB's
	// maxExpressionNesting is 500).
	Nesting int
	// Memory bounds the memory one query holds (its rows, the values it
	// makes, its result); a cursor's memoryLimit may ask for less.
	Memory int64
	// Runtime bounds one query's run time; a cursor's maxRuntime may ask
	// for less.
	Runtime time.Duration
	// Result bounds the size of one query's result, as JSON.
	Result int64
	// Concurrent is how many queries of the tenant run at once, and Queue
	// how many more may wait for a place (negative: none); past that a
	// query is refused.
	Concurrent, Queue int
	// CursorBytes bounds the results held, all together, by the tenant's
	// open cursors (results not yet fetched).
	CursorBytes int64
}

// DefaultLimits are the limits of a tenant's queries unless its pod's
// options say otherwise: sized so that one tenant cannot take the process
// above 1 GB resident. What a tenant's queries hold at most is
// Concurrent*Memory + CursorBytes (384 MB by the estimates, about 450 MB
// of Go heap), and the garbage collector lets the heap reach about twice
// what is live.
func DefaultLimits() Limits {
	return Limits{
		QueryBytes:  256 << 10,
		Nesting:     500,
		Memory:      128 << 20,
		Runtime:     2 * time.Minute,
		Result:      64 << 20,
		Concurrent:  2,
		Queue:       6,
		CursorBytes: 128 << 20,
	}
}

// OrDefault returns l with each zero field set to its default.
func (l Limits) OrDefault() Limits {
	d := DefaultLimits()
	if l.QueryBytes <= 0 {
		l.QueryBytes = d.QueryBytes
	}
	if l.Nesting <= 0 {
		l.Nesting = d.Nesting
	}
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.Runtime <= 0 {
		l.Runtime = d.Runtime
	}
	if l.Result <= 0 {
		l.Result = d.Result
	}
	if l.Concurrent <= 0 {
		l.Concurrent = d.Concurrent
	}
	switch {
	case l.Queue == 0:
		l.Queue = d.Queue
	case l.Queue < 0: // no queue: refused at once
		l.Queue = 0
	}
	if l.CursorBytes <= 0 {
		l.CursorBytes = d.CursorBytes
	}
	return l
}

// Budget returns the limits of one query's budget.Limits: memory, run
// time and result size.
func (l Limits) Budget() budget.Limits {
	return budget.Limits{Memory: l.Memory, Wall: l.Runtime, Result: l.Result}
}

// The numbers of ArangoDB's errors for limits (lib/Basics/errors.dat).
const (
	// ErrResourceLimit is ERROR_RESOURCE_LIMIT: memory, result size.
	ErrResourceLimit = 32
	// ErrQueryKilled is ERROR_QUERY_KILLED: run time, cancelled.
	ErrQueryKilled = 1500
	// ErrTooMuchNesting is ERROR_QUERY_TOO_MUCH_NESTING: nesting, size.
	ErrTooMuchNesting = 1524
)

// nestingError is ArangoDB's error for a query nested too deeply.
func nestingError(max int) error {
	return &QueryError{ErrTooMuchNesting, fmt.Sprintf("AQL: too much nesting or too many objects: expressions nested more than %d deep (while parsing)", max)}
}

// sizeError is the error of a query text over its limit.
func sizeError(n, max int) error {
	return &QueryError{ErrTooMuchNesting, fmt.Sprintf("AQL: too much nesting or too many objects: the query is %s, over its limit of %s (while parsing)",
		budget.Bytes(int64(n)), budget.Bytes(int64(max)))}
}

// LimitError turns a query's crossed budget into ArangoDB's error: the
// memory or result size limit is ERROR_RESOURCE_LIMIT, the run time limit
// ERROR_QUERY_KILLED; it returns nil for any other error.
func LimitError(err error) *QueryError {
	e, ok := budget.Exceeded(err)
	if !ok {
		return nil
	}
	switch e.Limit {
	case "memory":
		return &QueryError{ErrResourceLimit, "AQL: query would use more memory than allowed: " + e.Error() + " (while executing)"}
	case "run time":
		return &QueryError{ErrQueryKilled, "query killed: " + e.Error()}
	}
	return &QueryError{ErrResourceLimit, "AQL: resource limit exceeded: " + e.Error() + " (while executing)"}
}
