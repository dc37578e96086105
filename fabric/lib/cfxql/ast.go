package cfxql

import (
	"regexp"
	"time"
)

// The condition of a parsed query is a tree of Nodes, read by evaluators
// outside this package (the Arrow one, cfxarrow) through Query.Cond and
// the accessors below. The tree is immutable: nodes have no exported
// fields.

// Node is a node of a condition: *And, *Or, *Not, *All or *Cmp.
type Node interface{ isNode() }

// And is "l and r": both hold.
type And struct{ l, r Node }

// Or is "l or r": either holds.
type Or struct{ l, r Node }

// Not is "not x": x does not hold.
type Not struct{ x Node }

// All is "*": every row matches.
type All struct{}

func (*And) isNode() {}
func (*Or) isNode()  {}
func (*Not) isNode() {}
func (*All) isNode() {}
func (*Cmp) isNode() {}

// Operands returns the two sides of the and.
func (a *And) Operands() (l, r Node) { return a.l, a.r }

// Operands returns the two sides of the or.
func (o *Or) Operands() (l, r Node) { return o.l, o.r }

// Operand returns the negated condition.
func (n *Not) Operand() Node { return n.x }

// Cmp is a comparison of a column with literal values (or a null check,
// a regex, a time).
type Cmp struct {
	col  string
	op   Op
	neg  bool  // the negated operator: !=, not in, !~ ...
	lits []Lit // the values compared with (OpIn: the list)
	re   *regexp.Regexp
	t    *timeExpr // OpBefore, OpAfter; OpDuring: the start
	t2   *timeExpr // OpDuring 'A' to 'B': the end (nil for a period)
}

// Column returns the name of the column compared.
func (c *Cmp) Column() string { return c.col }

// Op returns the operator, in its positive form: "not in" is OpIn with
// Negated true, "!=" OpEq, "is not null" OpNull.
func (c *Cmp) Op() Op { return c.op }

// Negated reports whether the operator is the negated one (!=, not in,
// !~, is not null ...). A negated comparison is false on a null, like
// the positive one; only OpNull's negation holds on non-nulls.
func (c *Cmp) Negated() bool { return c.neg }

// Lits returns the literals compared with: one for =, the order and
// text operators, the list for OpIn (possibly empty), none for OpNull,
// OpMatches and the time operators. The slice is a copy.
func (c *Cmp) Lits() []Lit { return append([]Lit(nil), c.lits...) }

// Regexp returns the compiled regex of OpMatches (nil otherwise). It is
// shared: do not call its Longest.
func (c *Cmp) Regexp() *regexp.Regexp { return c.re }

// Point returns the instant of OpBefore and OpAfter (a period's start),
// relative times resolved against now.
func (c *Cmp) Point(now time.Time) time.Time { return c.t.point(now) }

// Span returns the interval of OpDuring: [start, end), or [start, end]
// when incl, relative times resolved against now.
func (c *Cmp) Span(now time.Time) (start, end time.Time, incl bool) {
	if c.t2 != nil {
		return rangeTo(c.t, c.t2, now)
	}
	return c.t.period(now)
}

// Match evaluates the comparison over one Go value, with the semantics
// of Query.Match (nil is null). It is what a vectorised evaluator falls
// back to for the types and operators it has no kernel for.
func (c *Cmp) Match(v any, now time.Time) bool { return matchValue(c, v, now) }

// columns appends the column names a condition reads.
func columns(n Node, out []string) []string {
	switch x := n.(type) {
	case *Or:
		return columns(x.r, columns(x.l, out))
	case *And:
		return columns(x.r, columns(x.l, out))
	case *Not:
		return columns(x.x, out)
	case *Cmp:
		return append(out, x.col)
	}
	return out
}
