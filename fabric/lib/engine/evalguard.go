package engine

import (
	"fmt"
	"github.com/fabricops/fabric/fabric/lib/starguard"
	"sort"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// An @dm:eval expression runs inside the worker, beside other tenants'
// jobs, and Starlark bounds neither its values nor its memory: "[0] *
// 1000000000" asks for 16 GB in one step, and replacing the empty string in s by s
// asks for the square of a string. So before an expression is compiled, its
// operations that can make a value larger than their operands (*, +, %
// and the string methods replace, format and join) are rewritten as
// calls of guards that work out the size of the result first and refuse
// one over maxEvalValue, and range is one that refuses more than
// maxEvalRange elements. Everything else an expression does is bounded
// by its steps (maxEvalSteps) and by the values it may make.
const (
	maxEvalValue = 64 << 20
	maxEvalRange = 10_000_000
)

// The names of the guards in an expression's environment; no column can
// take them (isIdentifier refuses names that start with an underscore
// and a 'fabric').
const (
	guardBinary = "_fabric_binary"
	guardMethod = "_fabric_method"
)

// guardedMethods are the string methods whose result can outgrow their
// operands.
var guardedMethods = map[string]bool{"replace": true, "format": true, "join": true}

// edit is a text edit of an expression: at byte offset off, drop n bytes
// and insert text. order breaks ties between edits at one offset.
type edit struct {
	off, n int
	text   string
	order  int
}

// guardExpr rewrites expr so that its growing operations go through the
// guards (see maxEvalValue).
func guardExpr(expr string) (string, error) {
	// The scanner reads \r\n and \r as \n everywhere: written so, the
	// positions it gives are offsets of lines again.
	expr = strings.ReplaceAll(strings.ReplaceAll(expr, "\r\n", "\n"), "\r", "\n")
	e, err := evalOptions.ParseExpr("expr", expr, 0)
	if err != nil {
		return "", err
	}
	lines := lineStarts(expr)
	off := func(p syntax.Position) int { return byteOffset(expr, lines, p) }
	var edits []edit
	depth := 0
	syntax.Walk(e, func(n syntax.Node) bool {
		if n == nil {
			depth--
			return true
		}
		depth++
		switch x := n.(type) {
		case *syntax.BinaryExpr:
			if x.Op != syntax.STAR && x.Op != syntax.PLUS && x.Op != syntax.PERCENT {
				break
			}
			start, _ := x.X.Span()
			_, end := x.Y.Span()
			// The outer call opens first and closes last.
			edits = append(edits,
				edit{off: off(start), text: fmt.Sprintf("%s(%q, ", guardBinary, x.Op.String()), order: depth},
				edit{off: off(x.OpPos), n: len(x.Op.String()), text: ","},
				edit{off: off(end), text: ")", order: -depth})
		case *syntax.CallExpr:
			dot, ok := x.Fn.(*syntax.DotExpr)
			if !ok || !guardedMethods[dot.Name.Name] {
				break
			}
			start, _ := dot.X.Span()
			// X.name(args) -> guard(X, "name", args)
			sep := ", "
			if len(x.Args) == 0 {
				sep = ""
			}
			edits = append(edits,
				edit{off: off(start), text: guardMethod + "(", order: depth},
				edit{off: off(dot.Dot), n: off(x.Lparen) + 1 - off(dot.Dot), text: fmt.Sprintf(", %q%s", dot.Name.Name, sep)})
		}
		return true
	})
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].off != edits[j].off {
			return edits[i].off < edits[j].off
		}
		return edits[i].order < edits[j].order
	})
	var b strings.Builder
	at := 0
	for _, ed := range edits {
		b.WriteString(expr[at:ed.off])
		b.WriteString(ed.text)
		at = ed.off + ed.n
	}
	b.WriteString(expr[at:])
	return b.String(), nil
}

// lineStarts are the byte offsets at which the lines of s start.
func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// byteOffset turns a parser position (1-based line, 1-based column in
// runes) into a byte offset of s.
func byteOffset(s string, lines []int, p syntax.Position) int {
	line := int(p.Line) - 1
	if line < 0 || line >= len(lines) {
		return len(s)
	}
	i := lines[line]
	for col := int32(1); col < p.Col && i < len(s); col++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// evalGuards are the guards an expression's environment holds.
func evalGuards() starlark.StringDict {
	return starlark.StringDict{
		guardBinary: starlark.NewBuiltin(guardBinary, guardedBinary),
		guardMethod: starlark.NewBuiltin(guardMethod, guardedMethod),
		"range":     starlark.NewBuiltin("range", guardedRange),
	}
}

// valueSize is the size of a value an operation copies: the bytes of a
// string, 16 bytes an element of a list or tuple, and for others their
// text.
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
	case starlark.Int, starlark.Float, starlark.Bool, starlark.NoneType:
		return 8
	}
	return len(v.String())
}

func tooLarge(what string, n float64) error {
	return fmt.Errorf("%s would make a value of %.0f bytes, more than an expression may make (%d)", what, n, maxEvalValue)
}

// guardedBinary is x op y for *, + and %, refused when the result would
// be larger than maxEvalValue.
func guardedBinary(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var op string
	var x, y starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 3, &op, &x, &y); err != nil {
		return nil, err
	}
	var tok syntax.Token
	var size float64
	switch op {
	case "*":
		tok = syntax.STAR
		seq, n := x, y
		if _, ok := x.(starlark.Int); ok {
			seq, n = y, x
		}
		if i, ok := n.(starlark.Int); ok {
			if k, ok := i.Int64(); ok && k > 0 {
				if _, isInt := seq.(starlark.Int); !isInt {
					size = float64(valueSize(seq)) * float64(k)
				}
			}
		}
	case "+":
		tok = syntax.PLUS
		if _, ok := x.(starlark.Int); !ok {
			size = float64(valueSize(x)) + float64(valueSize(y))
		}
	case "%":
		tok = syntax.PERCENT
		if f, ok := x.(starlark.String); ok {
			// Each conversion may put the largest argument in.
			largest := valueSize(y)
			if t, ok := y.(starlark.Tuple); ok {
				largest = 0
				for _, v := range t {
					largest = max(largest, valueSize(v))
				}
			}
			size = float64(len(f)) + float64(strings.Count(string(f), "%"))*float64(largest)
		}
	default:
		return nil, fmt.Errorf("%s: unknown operator %q", b.Name(), op)
	}
	if size > maxEvalValue {
		return nil, tooLarge(op, size)
	}
	return starlark.Binary(tok, x, y)
}

// guardedMethod is x.name(args) for the string methods that can grow,
// refused when the result would be larger than maxEvalValue; for other
// values it is the method call as it was.
func guardedMethod(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("%s: missing receiver", b.Name())
	}
	recv, nameV, rest := args[0], args[1], args[2:]
	name, _ := starlark.AsString(nameV)
	if s, ok := recv.(starlark.String); ok {
		if size := starguard.StringMethodSize(string(s), name, rest, kwargs, valueSize); size > maxEvalValue {
			return nil, tooLarge("."+name, size)
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

// guardedRange is Starlark's range, refused past maxEvalRange elements
// (a range is lazy, but list(range(...)) is not).
func guardedRange(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	r, err := starlark.Call(thread, starlark.Universe["range"], args, kwargs)
	if err != nil {
		return nil, err
	}
	if n := r.(starlark.Sequence).Len(); n > maxEvalRange {
		return nil, fmt.Errorf("range of %d elements is more than an expression may make (%d)", n, maxEvalRange)
	}
	return r, nil
}
