package cfxql

import (
	"sort"
	"strings"
)

// opSpec is one spelling of an operator.
type opSpec struct {
	words []string // the tokens, words matched case-insensitively
	op    Op
	neg   bool
}

// operators are every spelling of every operator, longest first (so that
// "is not in" wins over "is not" and "is").
var operators = func() []opSpec {
	spell := []struct {
		op    Op
		neg   bool
		forms []string
	}{
		{OpEq, false, []string{"=", "==", "is", "equals", "is equal to", "equal to"}},
		{OpEq, true, []string{"!=", "<>", "is not", "not equals", "is not equal to", "not equal to"}},
		{OpGt, false, []string{">", "gt", "is greater than", "greater than"}},
		{OpGe, false, []string{">=", "gte", "is greater than or equal to", "greater than or equal to"}},
		{OpLt, false, []string{"<", "lt", "is less than", "less than"}},
		{OpLe, false, []string{"<=", "lte", "is less than or equal to", "less than or equal to"}},
		{OpContains, false, []string{"~", "contains", "has"}},
		{OpContains, true, []string{"!~", "not contains", "does not contain", "does not contains"}},
		{OpMatches, false, []string{"?", "matches"}},
		{OpMatches, true, []string{"!?", "does not match", "not matches"}},
		{OpStarts, false, []string{"^~", "starts with"}},
		{OpStarts, true, []string{"!^~", "does not start with", "not starts with"}},
		{OpEnds, false, []string{"~$", "ends with"}},
		{OpEnds, true, []string{"!~$", "does not end with", "not ends with"}},
		{OpIn, false, []string{"in", "is in", "is one of", "is among", "is any of"}},
		{OpIn, true, []string{"not in", "not-in", "is not in", "is not one of", "is not among", "is not any of"}},
		{OpNull, false, []string{"is null", "is none", "is empty", "isnull"}},
		{OpNull, true, []string{"is not null", "notnull", "is not none", "is not empty"}},
		{OpBefore, false, []string{"before", "is before"}},
		{OpAfter, false, []string{"after", "is after"}},
		{OpDuring, false, []string{"during", "is during"}},
		{OpDuring, true, []string{"not during", "is not during"}},
	}
	var out []opSpec
	for _, s := range spell {
		for _, f := range s.forms {
			out = append(out, opSpec{words: strings.Fields(f), op: s.op, neg: s.neg})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].words) > len(out[j].words) })
	return out
}()

// operator reads the longest operator at the current token.
func (p *parser) operator() (opSpec, bool) {
next:
	for _, s := range operators {
		for k, w := range s.words {
			t := p.peekAt(k)
			if !(t.kind == tSym && t.text == w || t.kind == tWord && strings.EqualFold(t.text, w)) {
				continue next
			}
		}
		p.i += len(s.words)
		return s, true
	}
	return opSpec{}, false
}

// list reads the operand of an in-operator (or of =): a list in brackets
// or parentheses, or bare values separated by commas (one value is a
// list of one).
func (p *parser) list(opText string) ([]Lit, error) {
	open := p.peek()
	p.wasList = false
	if isSym(open, "[") || isSym(open, "(") {
		closing := "]"
		if open.text == "(" {
			closing = ")"
		}
		p.advance()
		var out []Lit
		if isSym(p.peek(), closing) {
			p.advance()
			p.wasList = true
			return out, nil
		}
		for {
			l, err := p.scalar(opText)
			if err != nil {
				if p.peek().kind == tEOF {
					return nil, errAt(open, "unclosed '%s'", open.text)
				}
				return nil, err
			}
			out = append(out, l)
			t := p.peek()
			if isSym(t, ",") {
				p.advance()
				continue
			}
			if isSym(t, closing) {
				p.advance()
				p.wasList = true
				return out, nil
			}
			if t.kind == tEOF {
				return nil, errAt(open, "unclosed '%s'", open.text)
			}
			return nil, errAt(t, "expected ',' or '%s' in the list, found %s", closing, t.describe())
		}
	}
	var out []Lit
	for {
		l, err := p.scalar(opText)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
		if !isSym(p.peek(), ",") {
			return out, nil
		}
		p.advance()
	}
}

// timeOperand reads a time: a quoted absolute or relative time, a number
// (epoch seconds or milliseconds), or relative words: now, today,
// yesterday, this month, last week, -10 days, -15m, 2 hours ago.
func (p *parser) timeOperand(opText string) (*timeExpr, error) {
	t := p.peek()
	switch t.kind {
	case tString:
		p.advance()
		if te, ok := parseTimeText(t.text); ok {
			return te, nil
		}
		return nil, errAt(t, "bad time %s (expected a date such as '2022-01-31', an ISO 8601 time, 'Jan 1, 2022 10am' or a relative time such as '-2 hours' or 'this month')", t.describe())
	case tWord, tNumber:
		// The longest run of up to three words that reads as a relative time.
		for k := 3; k >= 1; k-- {
			var w []string
			for j := 0; j < k; j++ {
				if u := p.peekAt(j); u.kind == tWord || u.kind == tNumber {
					w = append(w, u.text)
				}
			}
			if len(w) != k {
				continue
			}
			if te, ok := parseRelTime(strings.Join(w, " ")); ok {
				p.i += k
				return te, nil
			}
		}
		if t.kind == tNumber {
			p.advance()
			n, _ := parseNumber(t.text)
			if te, ok := numberTime(n, t.text); ok {
				return te, nil
			}
			return nil, errAt(t, "bad time %s (a number is epoch seconds, or milliseconds)", t.describe())
		}
		return nil, errAt(t, "bad time %s (expected now, today, yesterday, this week, last month, -10 days, a quoted date...)", t.describe())
	}
	return nil, p.expectedValue(opText, "a time")
}

// during reads the operand of during: 'A' to 'B', or a period (today,
// this month, a date, -2 hours, 'A to B' in one string).
func (p *parser) during(c *Cmp, opText string) error {
	t := p.peek()
	if t.kind == tString {
		if _, ok := parseTimeText(t.text); !ok {
			if a, b, found := strings.Cut(strings.ToLower(t.text), " to "); found {
				ta, oka := parseTimeText(a)
				tb, okb := parseTimeText(b)
				if oka && okb {
					p.advance()
					c.t, c.t2 = ta, tb
					return nil
				}
			}
		}
	}
	var err error
	if c.t, err = p.timeOperand(opText); err != nil {
		return err
	}
	if isWord(p.peek(), "to") {
		p.advance()
		if c.t2, err = p.timeOperand("to"); err != nil {
			return err
		}
	}
	return nil
}

// projection reads the columns of GET: name [as alias], ...
func (p *parser) projection() ([]Column, error) {
	var out []Column
	for {
		what := "a column name"
		if len(out) == 0 {
			what = "a column name after GET"
		}
		name, _, err := p.columnName(what)
		if err != nil {
			return nil, err
		}
		c := Column{Name: name}
		if isWord(p.peek(), "as") {
			p.advance()
			a := p.peek()
			switch a.kind {
			case tString, tName, tWord, tNumber:
				p.advance()
				c.Alias = a.text
			default:
				return nil, errAt(a, "expected an alias after 'as'")
			}
			if c.Alias == "" {
				return nil, errAt(a, "empty alias")
			}
		}
		out = append(out, c)
		if !isSym(p.peek(), ",") {
			return out, nil
		}
		p.advance()
	}
}
