package cfxql

import (
	"strconv"
	"time"
)

// LitKind is the kind of a literal, as written in the query.
type LitKind int

// The kinds of literals.
const (
	LitString LitKind = iota // 'text' or "text"
	LitNumber                // 42, -1.5, 2e3
	LitBool                  // true, false
)

// Lit is a literal value of a query, with the interpretations computed
// at parse time: a string that reads as a number carries it, one that
// reads as a time carries its time expression.
type Lit struct {
	kind LitKind
	s    string // LitString: the text; LitNumber: the source text
	n    number // LitNumber, or a LitString with numOK
	b    bool   // LitBool
	// numOK: the literal is (or reads as) a number.
	numOK bool
	// t: the literal read as a time (a number as epoch seconds or
	// milliseconds, a string as an absolute or relative time), or nil.
	t *timeExpr
}

// Kind returns the kind of the literal as written.
func (l Lit) Kind() LitKind { return l.kind }

// Text returns the literal's text form, as the text operators compare
// it: a string's text, a number as written, "true" or "false".
func (l Lit) Text() string {
	switch l.kind {
	case LitNumber:
		return l.s
	case LitBool:
		return strconv.FormatBool(l.b)
	}
	return l.s
}

// Int returns the literal as an integer, when it is one or is a string
// that reads as one ('80').
func (l Lit) Int() (int64, bool) { return l.n.i, l.numOK && l.n.isInt }

// Float returns the literal as a float64, when it is a number or is a
// string that reads as one.
func (l Lit) Float() (float64, bool) { return l.n.f, l.numOK }

// Bool returns the value of a LitBool literal.
func (l Lit) Bool() (v, ok bool) { return l.b, l.kind == LitBool }

// Time returns the literal read as a time, relative times resolved
// against now (a period's start): a string as an absolute or relative
// time, a number as epoch seconds or milliseconds. ok is false when it
// does not read as one.
func (l Lit) Time(now time.Time) (t time.Time, ok bool) {
	if l.t == nil {
		return time.Time{}, false
	}
	return l.t.point(now), true
}
