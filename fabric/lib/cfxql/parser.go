package cfxql

import (
	"fmt"
	"regexp"
	"strings"
)

// parser is a recursive-descent parser over the tokens of a query.
type parser struct {
	toks    []token
	i       int
	depth   int
	wasList bool // the last list read was bracketed
}

// maxDepth bounds the nesting of parentheses and nots.
const maxDepth = 200

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) advance() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func errAt(t token, format string, args ...any) *SyntaxError {
	return &SyntaxError{Col: t.col, Msg: fmt.Sprintf(format, args...)}
}

// isWord reports whether t is the bare word w (case-insensitively).
func isWord(t token, w string) bool { return t.kind == tWord && strings.EqualFold(t.text, w) }

func isSym(t token, s string) bool { return t.kind == tSym && t.text == s }

// parseQuery parses a whole query: "*" or a condition, then an optional
// GET projection.
func parseQuery(src string) (Node, []Column, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, nil, err
	}
	p := &parser{toks: toks}
	if p.peek().kind == tEOF {
		return nil, nil, &SyntaxError{Col: 1, Msg: "empty query"}
	}
	var root Node
	if isSym(p.peek(), "*") && (p.peekAt(1).kind == tEOF || isWord(p.peekAt(1), "get")) {
		p.advance()
		root = &All{}
	} else if isWord(p.peek(), "get") {
		return nil, nil, errAt(p.peek(), "expected a condition or * before GET")
	} else {
		if root, err = p.or(); err != nil {
			return nil, nil, err
		}
	}
	var proj []Column
	if isWord(p.peek(), "get") {
		p.advance()
		if proj, err = p.projection(); err != nil {
			return nil, nil, err
		}
	}
	if t := p.peek(); t.kind != tEOF {
		if isSym(t, ")") {
			return nil, nil, errAt(t, "unexpected ')' without a matching '('")
		}
		return nil, nil, errAt(t, "unexpected %s (expected and, or, GET or the end)", t.describe())
	}
	return root, proj, nil
}

func (p *parser) or() (Node, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); isWord(t, "or") || isSym(t, "|") || isSym(t, "||"); t = p.peek() {
		p.advance()
		if err := p.needCondition(t); err != nil {
			return nil, err
		}
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &Or{l, r}
	}
	return l, nil
}

func (p *parser) and() (Node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); isWord(t, "and") || isSym(t, "&") || isSym(t, "&&"); t = p.peek() {
		p.advance()
		if err := p.needCondition(t); err != nil {
			return nil, err
		}
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &And{l, r}
	}
	return l, nil
}

func (p *parser) unary() (Node, error) {
	t := p.peek()
	if p.depth++; p.depth > maxDepth {
		return nil, errAt(t, "too deeply nested")
	}
	defer func() { p.depth-- }()
	switch {
	case isWord(t, "not"):
		p.advance()
		if err := p.needCondition(t); err != nil {
			return nil, err
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Not{x}, nil
	case isSym(t, "("):
		p.advance()
		if c := p.peek(); isSym(c, ")") {
			return nil, errAt(c, "expected a condition inside '()'")
		}
		if err := p.needCondition(t); err != nil {
			return nil, err
		}
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.peek(); !isSym(c, ")") {
			if c.kind == tEOF {
				return nil, errAt(t, "unclosed '('")
			}
			return nil, errAt(c, "expected ')', found %s", c.describe())
		}
		p.advance()
		return x, nil
	case isSym(t, "*"):
		p.advance()
		return &All{}, nil
	}
	return p.comparison()
}

// needCondition fails when the query ends after t, which needs a
// condition after it.
func (p *parser) needCondition(t token) error {
	if e := p.peek(); e.kind == tEOF {
		return errAt(e, "expected a condition after %s", t.describe())
	}
	return nil
}

// columnName reads a column name: a bare word that is not a keyword, or a
// backquoted name.
func (p *parser) columnName(what string) (string, token, error) {
	t := p.peek()
	switch t.kind {
	case tName:
		p.advance()
		return t.text, t, nil
	case tWord, tNumber:
		if isBareName(t.text) || t.kind == tNumber && !strings.ContainsAny(t.text[:1], "+-") {
			p.advance()
			return t.text, t, nil
		}
		if keywords[strings.ToLower(t.text)] {
			return "", t, errAt(t, "expected %s, found the keyword '%s' (write `%s` for a column of that name)", what, t.raw, t.raw)
		}
	case tEOF:
		return "", t, errAt(t, "expected %s", what)
	}
	return "", t, errAt(t, "expected %s, found %s", what, t.describe())
}

func (p *parser) comparison() (Node, error) {
	name, nt, err := p.columnName("a column name")
	if err != nil {
		return nil, err
	}
	optok := p.peek()
	o, ok := p.operator()
	if !ok {
		switch {
		case optok.kind == tEOF:
			return nil, errAt(optok, "expected an operator after '%s'", nt.raw)
		case optok.kind == tWord:
			return nil, errAt(optok, "unknown operator '%s'", optok.raw)
		case optok.kind == tSym && !strings.ContainsAny(optok.text, "()[],&|*"):
			return nil, errAt(optok, "unknown operator '%s'", optok.raw)
		}
		return nil, errAt(optok, "expected an operator after '%s', found %s", nt.raw, optok.describe())
	}
	c := &Cmp{col: name, op: o.op, neg: o.neg}
	opText := p.textFrom(optok)
	switch o.op {
	case OpNull:
		return c, nil
	case OpBefore, OpAfter:
		if c.t, err = p.timeOperand(opText); err != nil {
			return nil, err
		}
		return c, nil
	case OpDuring:
		return c, p.during(c, opText)
	case OpIn:
		c.lits, err = p.list(opText)
		return c, err
	case OpEq:
		if l := p.peek(); isWord(l, "null") || isWord(l, "none") {
			p.advance()
			c.op = OpNull
			return c, nil
		}
		if c.lits, err = p.list(opText); err != nil {
			return nil, err
		}
		if len(c.lits) > 1 || p.wasList {
			c.op = OpIn
		}
		return c, nil
	case OpMatches:
		vt := p.peek()
		l, err := p.scalar(opText)
		if err != nil {
			return nil, err
		}
		if c.re, err = regexp.Compile(l.Text()); err != nil {
			return nil, errAt(vt, "bad regex %s: %v", vt.describe(), strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		return c, nil
	}
	l, err := p.scalar(opText)
	if err != nil {
		return nil, err
	}
	c.lits = []Lit{l}
	return c, nil
}

// textFrom returns the source text of the tokens from t to the current
// one, for messages (the operator as written).
func (p *parser) textFrom(t token) string {
	var w []string
	for k := range p.toks[:p.i] {
		if p.toks[k].col >= t.col {
			w = append(w, p.toks[k].raw)
		}
	}
	return strings.Join(w, " ")
}

// operand errors
func (p *parser) expectedValue(opText, what string) error {
	t := p.peek()
	if t.kind == tEOF {
		return errAt(t, "expected %s after '%s'", what, opText)
	}
	if t.kind == tWord && !keywords[strings.ToLower(t.text)] {
		return errAt(t, "expected %s after '%s', found %s (quote strings: '%s')", what, opText, t.describe(), t.raw)
	}
	return errAt(t, "expected %s after '%s', found %s", what, opText, t.describe())
}

// scalar reads one literal: a string, a number, true or false.
func (p *parser) scalar(opText string) (Lit, error) {
	t := p.peek()
	switch {
	case t.kind == tString:
		p.advance()
		return strLit(t.text), nil
	case t.kind == tNumber:
		p.advance()
		return numLit(t.text), nil
	case isWord(t, "true"), isWord(t, "false"):
		p.advance()
		return Lit{kind: LitBool, b: strings.EqualFold(t.text, "true")}, nil
	}
	return Lit{}, p.expectedValue(opText, "a value")
}

func strLit(s string) Lit {
	l := Lit{kind: LitString, s: s}
	l.n, l.numOK = parseNumber(s)
	l.t, _ = parseTimeText(s)
	return l
}

func numLit(s string) Lit {
	l := Lit{kind: LitNumber, s: s, numOK: true}
	l.n, _ = parseNumber(s)
	l.t, _ = numberTime(l.n, s)
	return l
}
