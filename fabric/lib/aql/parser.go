package aql

import (
	"strconv"
	"strings"
)

// Parse parses a query within the default limits (DefaultLimits). An
// error is a *SyntaxError with the position, or a *QueryError for a query
// over a limit.
func Parse(src string) (*Query, error) { return ParseWithin(src, DefaultLimits()) }

// ParseWithin parses a query within l's limits on its size and nesting
// (zero: the defaults): a query over them fails with ArangoDB's error
// 1524 (too much nesting), never by exhausting the stack.
func ParseWithin(src string, l Limits) (*Query, error) {
	l = l.OrDefault()
	if len(src) > l.QueryBytes {
		return nil, sizeError(len(src), l.QueryBytes)
	}
	if strings.TrimSpace(src) == "" {
		return nil, &SyntaxError{Msg: "query is empty", Line: 1, Col: 1}
	}
	toks, err := Lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks, maxDepth: l.Nesting}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.Kind != EOF {
		return nil, p.unexpected(t)
	}
	if depth(q, l.Nesting) > l.Nesting {
		return nil, nestingError(l.Nesting)
	}
	return q, nil
}

type parser struct {
	src  string
	toks []Token
	pos  int
	// depth is how deeply the parser has recursed into expressions, at
	// most maxDepth.
	depth, maxDepth int
	// noIn is the depth at which IN ends an expression instead of being
	// an operator (0: none): the expression before a data-modification
	// operation's IN.
	noIn int
}

// enter goes one level deeper into an expression; leave comes back.
func (p *parser) enter() error {
	p.depth++
	if p.depth > p.maxDepth {
		return nestingError(p.maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) peek() Token { return p.toks[p.pos] }

func (p *parser) next() Token {
	t := p.toks[p.pos]
	if t.Kind != EOF {
		p.pos++
	}
	return t
}

// is reports whether the next token is the keyword or operator text.
func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.Kind == Keyword || t.Kind == Operator) && t.Text == text
}

func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(text string) error {
	if !p.accept(text) {
		return p.unexpected(p.peek())
	}
	return nil
}

// unexpected is ArangoDB's error for a token the grammar does not allow
// there.
func (p *parser) unexpected(t Token) error {
	var what string
	switch t.Kind {
	case EOF:
		what = "unexpected end of query"
	case Keyword:
		what = "unexpected " + t.Text + " keyword"
	case String:
		what = "unexpected quoted string"
	case Number:
		what = "unexpected number"
	case Ident:
		what = "unexpected identifier"
	case BindParam, BindColl:
		what = "unexpected bind parameter"
	default:
		what = "unexpected " + t.Text
	}
	return &SyntaxError{Msg: what, Near: near(p.src[t.Offset:]), Line: t.Line, Col: t.Col}
}

// name reads a variable name.
func (p *parser) name() (string, error) {
	t := p.next()
	if t.Kind != Ident {
		return "", p.unexpected(t)
	}
	return t.Text, nil
}

// query reads operations up to a RETURN (sub: inside parentheses).
func (p *parser) query() (*Query, error) {
	q := &Query{}
	for {
		t := p.peek()
		if endsWithModify(q) && (t.Kind == EOF || t.Kind == Operator && t.Text == ")") {
			return q, nil // a query may end with a data-modification operation
		}
		if t.Kind != Keyword {
			return nil, p.unexpected(t)
		}
		op, err := p.operation()
		if err != nil {
			return nil, err
		}
		q.Ops = append(q.Ops, op)
		if _, ok := op.(*Return); ok {
			return q, nil
		}
	}
}

func (p *parser) operation() (Op, error) {
	t := p.next()
	switch t.Text {
	case "FOR":
		return p.forOp()
	case "FILTER":
		cond, err := p.expr()
		return &Filter{Cond: cond}, err
	case "LET":
		v, err := p.name()
		if err != nil {
			return nil, err
		}
		if err := p.expect("="); err != nil {
			return nil, err
		}
		value, err := p.expr()
		return &Let{Var: v, Value: value}, err
	case "SORT":
		s := &Sort{}
		for {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			k := SortKey{Value: e}
			if p.accept("DESC") {
				k.Desc = true
			} else {
				p.accept("ASC")
			}
			s.Keys = append(s.Keys, k)
			if !p.accept(",") {
				return s, nil
			}
		}
	case "LIMIT":
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.accept(",") {
			b, err := p.expr()
			return &Limit{Offset: a, Count: b}, err
		}
		return &Limit{Count: a}, nil
	case "COLLECT":
		return p.collect()
	case "INSERT", "UPDATE", "REPLACE", "REMOVE", "UPSERT":
		return p.modify(t.Text)
	case "RETURN":
		r := &Return{Distinct: p.accept("DISTINCT")}
		v, err := p.expr()
		r.Value = v
		return r, err
	}
	return nil, p.unexpected(t)
}

func (p *parser) expr() (Expr, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	return p.ternary()
}

func (p *parser) ternary() (Expr, error) {
	cond, err := p.or()
	if err != nil || !p.accept("?") {
		return cond, err
	}
	t := &Ternary{Cond: cond}
	if !p.is(":") {
		if t.Then, err = p.ternary(); err != nil {
			return nil, err
		}
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	t.Else, err = p.ternary()
	return t, err
}

// binaryLevel reads left-associative operators of one precedence level.
func (p *parser) binaryLevel(next func() (Expr, error), ops ...string) (Expr, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		op := ""
		for _, o := range ops {
			if p.is(o) {
				op = o
				break
			}
		}
		if op == "" {
			return l, nil
		}
		p.pos++
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: canonical(op), L: l, R: r}
	}
}

// canonical names an operator one way (AND for &&, OR for ||).
func canonical(op string) string {
	switch op {
	case "&&":
		return "AND"
	case "||":
		return "OR"
	}
	return op
}

func (p *parser) or() (Expr, error)  { return p.binaryLevel(p.and, "||", "OR") }
func (p *parser) and() (Expr, error) { return p.binaryLevel(p.equality, "&&", "AND") }

// equality reads == != and the word operators IN, NOT IN, LIKE, NOT LIKE,
// =~ and !~ (one level in AQL).
func (p *parser) equality() (Expr, error) {
	l, err := p.relational()
	if err != nil {
		return nil, err
	}
	for {
		var op string
		switch {
		case p.is("IN") && p.depth == p.noIn:
			return l, nil // the IN of a data-modification operation
		case p.is("==") || p.is("!=") || p.is("=~") || p.is("!~") || p.is("IN") || p.is("LIKE"):
			op = p.next().Text
		case p.is("NOT") && (p.toks[p.pos+1].Text == "IN" || p.toks[p.pos+1].Text == "LIKE") && p.toks[p.pos+1].Kind == Keyword:
			p.next()
			op = "NOT " + p.next().Text
		default:
			return l, nil
		}
		r, err := p.relational()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r}
	}
}

func (p *parser) relational() (Expr, error) {
	return p.binaryLevel(p.rangeExpr, "<=", ">=", "<", ">")
}

func (p *parser) rangeExpr() (Expr, error) { return p.binaryLevel(p.additive, "..") }
func (p *parser) additive() (Expr, error)  { return p.binaryLevel(p.multiplicative, "+", "-") }
func (p *parser) multiplicative() (Expr, error) {
	return p.binaryLevel(p.unary, "*", "/", "%")
}

func (p *parser) unary() (Expr, error) {
	var op string
	switch {
	case p.is("!") || p.is("NOT"):
		p.next()
		op = "NOT"
	case p.is("-") || p.is("+"):
		op = p.next().Text
	default:
		return p.postfix()
	}
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	x, err := p.unary()
	return &Unary{Op: op, X: x}, err
}

// postfix reads a primary and its accesses: .name, [index], [*], (args).
func (p *parser) postfix() (Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.accept("."):
			t := p.next()
			if t.Kind != Ident && t.Kind != Keyword && t.Kind != String {
				return nil, p.unexpected(t)
			}
			x = &Attr{Obj: x, Name: t.Text}
		case p.is("[") && p.pos+2 < len(p.toks) && p.toks[p.pos+1].Text == "*" && p.toks[p.pos+2].Text == "]":
			p.pos += 3
			e := &Expand{Obj: x}
			// An attribute path after [*] applies to each element.
			var then Expr = &Current{}
			for p.is(".") {
				p.next()
				t := p.next()
				if t.Kind != Ident && t.Kind != Keyword {
					return nil, p.unexpected(t)
				}
				then = &Attr{Obj: then, Name: t.Text}
			}
			if _, isCurrent := then.(*Current); !isCurrent {
				e.Then = then
			}
			x = e
		case p.accept("["):
			i, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = &Index{Obj: x, Index: i}
		default:
			return x, nil
		}
	}
}

func (p *parser) primary() (Expr, error) {
	t := p.next()
	switch t.Kind {
	case Number:
		if i, err := strconv.ParseInt(t.Text, 10, 64); err == nil {
			return &Literal{Value: i}, nil
		}
		f, err := strconv.ParseFloat(t.Text, 64)
		if err != nil {
			return nil, p.unexpected(t)
		}
		return &Literal{Value: f}, nil
	case String:
		return &Literal{Value: t.Text}, nil
	case BindParam:
		return &Bind{Name: t.Text}, nil
	case BindColl:
		return &Bind{Name: t.Text, Collection: true}, nil
	case Keyword:
		if p.is("(") { // a function whose name is a keyword: LIKE(), KEEP(), COUNT()
			return p.call(t.Text)
		}
		switch t.Text {
		case "NULL":
			return &Literal{}, nil
		case "TRUE":
			return &Literal{Value: true}, nil
		case "FALSE":
			return &Literal{Value: false}, nil
		}
		return nil, p.unexpected(t)
	case Ident:
		if p.is("(") {
			return p.call(t.Text)
		}
		if p.is("::") { // a namespaced function: NS::NAME(...)
			name := t.Text
			for p.accept("::") {
				n, err := p.name()
				if err != nil {
					return nil, err
				}
				name += "::" + n
			}
			return p.call(name)
		}
		return &Var{Name: t.Text}, nil
	case Operator:
		switch t.Text {
		case "(":
			if k := p.peek(); k.Kind == Keyword && (k.Text == "FOR" || k.Text == "LET" || k.Text == "RETURN" || isModify(k.Text)) {
				q, err := p.query()
				if err != nil {
					return nil, err
				}
				if err := p.expect(")"); err != nil {
					return nil, err
				}
				return &Subquery{Query: q}, nil
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			return e, p.expect(")")
		case "[":
			a := &Array{}
			for !p.is("]") {
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				a.Elems = append(a.Elems, e)
				if !p.accept(",") {
					break
				}
			}
			return a, p.expect("]")
		case "{":
			return p.object()
		}
	}
	return nil, p.unexpected(t)
}

// call reads a function's arguments.
func (p *parser) call(name string) (Expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	c := &Call{Name: strings.ToUpper(name)}
	for !p.is(")") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, e)
		if !p.accept(",") {
			break
		}
	}
	return c, p.expect(")")
}

// object reads {name: value, "name": value, [expr]: value, name}.
func (p *parser) object() (Expr, error) {
	o := &Object{}
	for !p.is("}") {
		var f ObjectField
		t := p.next()
		switch {
		case t.Kind == Ident || t.Kind == String || t.Kind == Keyword:
			f.Name = t.Text
		case t.Kind == Operator && t.Text == "[":
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			f.Computed = e
		default:
			return nil, p.unexpected(t)
		}
		if p.accept(":") {
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			f.Value = v
		} else if t.Kind == Ident {
			f.Value = &Var{Name: t.Text} // {x} is {x: x}
		} else {
			return nil, p.unexpected(p.peek())
		}
		o.Fields = append(o.Fields, f)
		if !p.accept(",") {
			break
		}
	}
	return o, p.expect("}")
}
