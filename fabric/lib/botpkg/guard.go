package botpkg

import (
	"fmt"
	"github.com/fabricops/fabric/fabric/lib/starguard"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A bot runs inside the worker beside other tenants' jobs, and Starlark
// bounds neither its values nor its memory: "[0] * 1000000000" asks for
// 16 GB in one step. So once a module is parsed, its operations that can
// make a value larger than their operands (*, +, % and their augmented
// assignments, and the string methods replace, format and join) are
// rewritten in its syntax tree as calls of guards, which work out the
// size of the result first and refuse one over the value bound; range
// refuses more than maxRange elements. Positions are kept, so errors
// still point at the operator in the file as written. What grows one
// step at a time is bounded by the step budget and by the memory watch
// of Run.

// maxRange bounds the elements of a range.
const maxRange = 10_000_000

// The names of the guards in a module's environment; a module may not
// use names starting with guardPrefix.
const (
	guardPrefix  = "_fabric_"
	guardBinary  = "_fabric_binary"
	guardMethod  = "_fabric_method"
	guardAugment = "_fabric_augment"
)

// guardedMethods are the string methods whose result can outgrow their
// operands.
var guardedMethods = map[string]bool{"replace": true, "format": true, "join": true}

// guardFile rewrites f's growing operations as guard calls; a name of the
// guards' in f is an error.
func guardFile(f *syntax.File) error {
	var bad error
	syntax.Walk(f, func(n syntax.Node) bool {
		if x, ok := n.(*syntax.Ident); ok && bad == nil && strings.HasPrefix(x.Name, guardPrefix) {
			bad = syntax.Error{Pos: x.NamePos, Msg: fmt.Sprintf("names starting with %s are reserved", guardPrefix)}
		}
		return bad == nil
	})
	if bad != nil {
		return bad
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.AssignStmt:
			if op, ok := augmentOp(x.Op); ok {
				x.RHS = guardCall(guardAugment, x.OpPos, x.RHS, lit(op, x.OpPos), copyTarget(x.LHS), x.RHS)
			} else {
				fixExpr(&x.RHS)
			}
		default:
			fixChildren(n)
		}
		return true
	})
	return nil
}

// fixChildren replaces the growing expressions among n's children.
func fixChildren(n syntax.Node) {
	switch x := n.(type) {
	case *syntax.ExprStmt:
		fixExpr(&x.X)
	case *syntax.ReturnStmt:
		fixExpr(&x.Result)
	case *syntax.IfStmt:
		fixExpr(&x.Cond)
	case *syntax.WhileStmt:
		fixExpr(&x.Cond)
	case *syntax.ForStmt:
		fixExpr(&x.X)
	case *syntax.ForClause:
		fixExpr(&x.X)
	case *syntax.IfClause:
		fixExpr(&x.Cond)
	case *syntax.Comprehension:
		fixExpr(&x.Body)
	case *syntax.BinaryExpr:
		fixExpr(&x.X)
		fixExpr(&x.Y)
	case *syntax.UnaryExpr:
		fixExpr(&x.X)
	case *syntax.ParenExpr:
		fixExpr(&x.X)
	case *syntax.CondExpr:
		fixExpr(&x.Cond)
		fixExpr(&x.True)
		fixExpr(&x.False)
	case *syntax.CallExpr:
		fixExpr(&x.Fn)
		fixList(x.Args)
	case *syntax.DotExpr:
		fixExpr(&x.X)
	case *syntax.IndexExpr:
		fixExpr(&x.X)
		fixExpr(&x.Y)
	case *syntax.SliceExpr:
		fixExpr(&x.X)
		fixExpr(&x.Lo)
		fixExpr(&x.Hi)
		fixExpr(&x.Step)
	case *syntax.ListExpr:
		fixList(x.List)
	case *syntax.TupleExpr:
		fixList(x.List)
	case *syntax.DictExpr:
		fixList(x.List)
	case *syntax.DictEntry:
		fixExpr(&x.Key)
		fixExpr(&x.Value)
	case *syntax.LambdaExpr:
		fixExpr(&x.Body)
		fixList(x.Params)
	case *syntax.DefStmt:
		fixList(x.Params)
	}
}

func fixList(list []syntax.Expr) {
	for i := range list {
		fixExpr(&list[i])
	}
}

// fixExpr replaces *p by a guard call when it is a growing operation.
func fixExpr(p *syntax.Expr) {
	switch x := (*p).(type) {
	case *syntax.BinaryExpr:
		if x.Op == syntax.STAR || x.Op == syntax.PLUS || x.Op == syntax.PERCENT {
			*p = guardCall(guardBinary, x.OpPos, x.Y, lit(x.Op.String(), x.OpPos), x.X, x.Y)
		}
	case *syntax.CallExpr:
		if dot, ok := x.Fn.(*syntax.DotExpr); ok && guardedMethods[dot.Name.Name] {
			args := append([]syntax.Expr{dot.X, lit(dot.Name.Name, dot.NamePos)}, x.Args...)
			*p = &syntax.CallExpr{Fn: &syntax.Ident{Name: guardMethod, NamePos: dot.NamePos}, Lparen: x.Lparen, Args: args, Rparen: x.Rparen}
		}
	}
}

// guardCall is name(args...) at pos, ending where last ends.
func guardCall(name string, pos syntax.Position, last syntax.Expr, args ...syntax.Expr) *syntax.CallExpr {
	_, end := last.Span()
	return &syntax.CallExpr{Fn: &syntax.Ident{Name: name, NamePos: pos}, Lparen: pos, Args: args, Rparen: end}
}

func lit(s string, pos syntax.Position) *syntax.Literal {
	return &syntax.Literal{Token: syntax.STRING, TokenPos: pos, Raw: strconv.Quote(s), Value: s}
}

func augmentOp(t syntax.Token) (string, bool) {
	switch t {
	case syntax.PLUS_EQ:
		return "+", true
	case syntax.STAR_EQ:
		return "*", true
	case syntax.PERCENT_EQ:
		return "%", true
	}
	return "", false
}

// copyTarget is the target of an augmented assignment as an expression
// read again (its subexpressions are evaluated a second time).
func copyTarget(e syntax.Expr) syntax.Expr {
	switch x := e.(type) {
	case *syntax.Ident:
		return &syntax.Ident{Name: x.Name, NamePos: x.NamePos}
	case *syntax.IndexExpr:
		c := *x
		return &c
	case *syntax.DotExpr:
		c := *x
		return &c
	}
	return e
}

// guards are the guard builtins of a module's environment, refusing
// values over maxValue bytes.
func guards(maxValue int) starlark.StringDict {
	g := &guard{max: float64(maxValue)}
	return starlark.StringDict{
		guardBinary:  starlark.NewBuiltin("operator", g.binary),
		guardAugment: starlark.NewBuiltin("operator", g.augment),
		guardMethod:  starlark.NewBuiltin("method", g.method),
		"range":      starlark.NewBuiltin("range", guardedRange),
	}
}

type guard struct{ max float64 }

// valueSize is the size of a value an operation copies: the bytes of a
// string, 16 bytes an element of a list or tuple, and for others 8.
func valueSize(v starlark.Value) int {
	switch x := v.(type) {
	case starlark.String:
		return len(x)
	case starlark.Bytes:
		return len(x)
	case *starlark.List:
		return 16 * x.Len()
	case starlark.Tuple:
		return 16 * len(x)
	case *starlark.Dict:
		return 48 * x.Len()
	}
	return 8
}

func (g *guard) check(what string, n float64) error {
	if n > g.max {
		return fmt.Errorf("%s would make a value of %.0f bytes, over the value limit of %.0f bytes", what, n, g.max)
	}
	return nil
}

// size is the most the result of x op y can be.
func size(op string, x, y starlark.Value) float64 {
	switch op {
	case "*":
		seq, n := x, y
		if _, ok := x.(starlark.Int); ok {
			seq, n = y, x
		}
		if i, ok := n.(starlark.Int); ok {
			if _, isInt := seq.(starlark.Int); !isInt {
				if k, ok := i.Int64(); ok && k > 0 {
					return float64(valueSize(seq)) * float64(k)
				} else if !ok && i.Sign() > 0 {
					return 1e30
				}
			}
		}
	case "+":
		if _, ok := x.(starlark.Int); !ok {
			return float64(valueSize(x)) + float64(valueSize(y))
		}
	case "%":
		if f, ok := x.(starlark.String); ok {
			largest := valueSize(y)
			if t, ok := y.(starlark.Tuple); ok {
				largest = 0
				for _, v := range t {
					largest = max(largest, valueSize(v))
				}
			}
			return float64(len(f)) + float64(strings.Count(string(f), "%"))*float64(largest)
		}
	}
	return 0
}

func opToken(op string) syntax.Token {
	switch op {
	case "*":
		return syntax.STAR
	case "+":
		return syntax.PLUS
	}
	return syntax.PERCENT
}

// binary is x op y, refused when the result would be over the bound.
func (g *guard) binary(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	op, x, y := string(args[0].(starlark.String)), args[1], args[2]
	if err := g.check(op, size(op, x, y)); err != nil {
		return nil, err
	}
	return starlark.Binary(opToken(op), x, y)
}

// augment checks x op= y and returns y, for the assignment to do.
func (g *guard) augment(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	op, x, y := string(args[0].(starlark.String)), args[1], args[2]
	if err := g.check(op+"=", size(op, x, y)); err != nil {
		return nil, err
	}
	return y, nil
}

// method is x.name(args), refused for a string method whose result would
// be over the bound.
func (g *guard) method(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	recv, name, rest := args[0], string(args[1].(starlark.String)), args[2:]
	if s, ok := recv.(starlark.String); ok {
		if err := g.check("."+name, starguard.StringMethodSize(string(s), name, rest, kwargs, valueSize)); err != nil {
			return nil, err
		}
	}
	attrs, ok := recv.(starlark.HasAttrs)
	if !ok {
		return nil, fmt.Errorf("%s has no .%s field or method", recv.Type(), name)
	}
	m, err := attrs.Attr(name)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%s has no .%s field or method", recv.Type(), name)
	}
	return starlark.Call(thread, m, rest, kwargs)
}

// guardedRange is Starlark's range, refused past maxRange elements (a
// range is lazy, but list(range(...)) is not).
func guardedRange(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r, err := starlark.Call(thread, starlark.Universe["range"], args, kwargs)
	if err != nil {
		return nil, err
	}
	if n := r.(starlark.Sequence).Len(); n > maxRange {
		return nil, fmt.Errorf("a range of %d elements is over the limit of %d", n, maxRange)
	}
	return r, nil
}
