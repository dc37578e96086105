package cfxql

import (
	"regexp"
	"strconv"
	"strings"
)

// op is a comparison operator, in its positive form (a negated operator
// is the positive one with cmp.neg set).
type op int

const (
	opEq       op = iota // = (with a list: membership)
	opGt                 // >
	opGe                 // >=
	opLt                 // <
	opLe                 // <=
	opContains           // ~
	opStarts             // ^~
	opEnds               // ~$
	opMatches            // ? (RE2)
	opIn                 // in
	opNull               // is null
	opBefore             // before
	opAfter              // after
	opDuring             // during
)

// node is a node of a condition: *andNode, *orNode, *notNode, *allNode or
// *cmp.
type node interface{ isNode() }

type andNode struct{ l, r node }
type orNode struct{ l, r node }
type notNode struct{ x node }
type allNode struct{}

func (*andNode) isNode() {}
func (*orNode) isNode()  {}
func (*notNode) isNode() {}
func (*allNode) isNode() {}
func (*cmp) isNode()     {}

// cmp is a comparison of a column with literal values.
type cmp struct {
	col  string
	op   op
	neg  bool  // the negated operator: !=, not in, !~ ...
	lits []lit // the values compared with (opIn: the list)
	re   *regexp.Regexp
	t    *timeExpr // opBefore, opAfter; opDuring: the start
	t2   *timeExpr // opDuring 'A' to 'B': the end (nil for a period)
}

// litKind is the kind of a literal.
type litKind int

const (
	litStr litKind = iota
	litNum
	litBool
)

// lit is a literal value of a query, with the interpretations computed
// at parse time: a string that reads as a number carries it, one that
// reads as a time carries its time expression.
type lit struct {
	kind litKind
	s    string // litStr: the text; litNum: the source text
	n    number // litNum, or a litStr with numOK
	b    bool   // litBool
	// numOK: the literal is (or reads as) a number.
	numOK bool
	// t: the literal read as a time (a number as epoch seconds or
	// milliseconds, a string as an absolute or relative time), or nil.
	t *timeExpr
}

// text returns the literal's text form, as compared by the text
// operators.
func (l lit) text() string {
	switch l.kind {
	case litNum:
		return l.s
	case litBool:
		return strconv.FormatBool(l.b)
	}
	return l.s
}

// keywords are the words that cannot be bare column names: they start an
// operator or join conditions. Backquote them to use them as names.
var keywords = map[string]bool{
	"and": true, "or": true, "not": true, "get": true, "is": true, "in": true, "not-in": true,
	"equals": true, "contains": true, "has": true, "matches": true, "starts": true, "ends": true,
	"does": true, "before": true, "after": true, "during": true, "gt": true, "gte": true,
	"lt": true, "lte": true, "notnull": true,
}

// isBareName reports whether name can be written without backquotes.
func isBareName(name string) bool {
	if name == "" || keywords[strings.ToLower(name)] || isNumber(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isWordByte(name[i]) {
			return false
		}
	}
	return true
}

// quoteName renders a column name, backquoted when needed.
func quoteName(name string) string {
	if isBareName(name) {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// quoteString renders a string literal in single quotes.
func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func (l lit) canonical() string {
	switch l.kind {
	case litNum:
		return l.s
	case litBool:
		return strconv.FormatBool(l.b)
	}
	return quoteString(l.s)
}

var opSyms = map[op][2]string{
	opEq:       {"=", "!="},
	opGt:       {">", ""},
	opGe:       {">=", ""},
	opLt:       {"<", ""},
	opLe:       {"<=", ""},
	opContains: {"~", "!~"},
	opStarts:   {"^~", "!^~"},
	opEnds:     {"~$", "!~$"},
	opMatches:  {"?", "!?"},
	opIn:       {"in", "not in"},
	opNull:     {"is null", "is not null"},
	opBefore:   {"before", ""},
	opAfter:    {"after", ""},
	opDuring:   {"during", "not during"},
}

// canonical renders a node in the canonical syntax, which parses back to
// the same condition.
func canonical(n node) string {
	var b strings.Builder
	writeNode(&b, n, 0)
	return b.String()
}

// writeNode renders n; prec is the binding of its context (0 top, 1
// inside or, 2 inside and), to parenthesise an or inside an and.
func writeNode(b *strings.Builder, n node, prec int) {
	switch x := n.(type) {
	case *allNode:
		b.WriteString("*")
	case *orNode:
		if prec > 1 {
			b.WriteString("(")
		}
		writeNode(b, x.l, 1)
		b.WriteString(" or ")
		writeNode(b, x.r, 1)
		if prec > 1 {
			b.WriteString(")")
		}
	case *andNode:
		writeNode(b, x.l, 2)
		b.WriteString(" and ")
		writeNode(b, x.r, 2)
	case *notNode:
		b.WriteString("not (")
		writeNode(b, x.x, 0)
		b.WriteString(")")
	case *cmp:
		b.WriteString(quoteName(x.col))
		b.WriteString(" ")
		b.WriteString(opSyms[x.op][btoi(x.neg)])
		switch x.op {
		case opNull:
		case opMatches:
			b.WriteString(" " + quoteString(x.re.String()))
		case opIn:
			b.WriteString(" [")
			for i, l := range x.lits {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(l.canonical())
			}
			b.WriteString("]")
		case opBefore, opAfter:
			b.WriteString(" " + x.t.canonical())
		case opDuring:
			b.WriteString(" " + x.t.canonical())
			if x.t2 != nil {
				b.WriteString(" to " + x.t2.canonical())
			}
		default:
			b.WriteString(" " + x.lits[0].canonical())
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// columns appends the column names a condition reads.
func columns(n node, out []string) []string {
	switch x := n.(type) {
	case *orNode:
		return columns(x.r, columns(x.l, out))
	case *andNode:
		return columns(x.r, columns(x.l, out))
	case *notNode:
		return columns(x.x, out)
	case *cmp:
		return append(out, x.col)
	}
	return out
}
