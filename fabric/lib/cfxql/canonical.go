package cfxql

import (
	"strconv"
	"strings"
)

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

func (l Lit) canonical() string {
	switch l.kind {
	case LitNumber:
		return l.s
	case LitBool:
		return strconv.FormatBool(l.b)
	}
	return quoteString(l.s)
}

var opSyms = map[Op][2]string{
	OpEq:       {"=", "!="},
	OpGt:       {">", ""},
	OpGe:       {">=", ""},
	OpLt:       {"<", ""},
	OpLe:       {"<=", ""},
	OpContains: {"~", "!~"},
	OpStarts:   {"^~", "!^~"},
	OpEnds:     {"~$", "!~$"},
	OpMatches:  {"?", "!?"},
	OpIn:       {"in", "not in"},
	OpNull:     {"is null", "is not null"},
	OpBefore:   {"before", ""},
	OpAfter:    {"after", ""},
	OpDuring:   {"during", "not during"},
}

// canonical renders a node in the canonical syntax, which parses back to
// the same condition.
func canonical(n Node) string {
	var b strings.Builder
	writeNode(&b, n, 0)
	return b.String()
}

// writeNode renders n; prec is the binding of its context (0 top, 1
// inside or, 2 inside and), to parenthesise an or inside an and.
func writeNode(b *strings.Builder, n Node, prec int) {
	switch x := n.(type) {
	case *All:
		b.WriteString("*")
	case *Or:
		if prec > 1 {
			b.WriteString("(")
		}
		writeNode(b, x.l, 1)
		b.WriteString(" or ")
		writeNode(b, x.r, 1)
		if prec > 1 {
			b.WriteString(")")
		}
	case *And:
		writeNode(b, x.l, 2)
		b.WriteString(" and ")
		writeNode(b, x.r, 2)
	case *Not:
		b.WriteString("not (")
		writeNode(b, x.x, 0)
		b.WriteString(")")
	case *Cmp:
		b.WriteString(quoteName(x.col))
		b.WriteString(" ")
		b.WriteString(opSyms[x.op][btoi(x.neg)])
		switch x.op {
		case OpNull:
		case OpMatches:
			b.WriteString(" " + quoteString(x.re.String()))
		case OpIn:
			b.WriteString(" [")
			for i, l := range x.lits {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(l.canonical())
			}
			b.WriteString("]")
		case OpBefore, OpAfter:
			b.WriteString(" " + x.t.canonical())
		case OpDuring:
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
