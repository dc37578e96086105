package engine

import (
	"context"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"math/big"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"go.starlark.net/lib/math"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

func init() {
	register(&bot{run: runEval, free: true, check: checkEval, doc: BotDoc{Streams: true, Tag: "@dm:eval",
		Description: "Computes columns with Starlark expressions evaluated row by row: each parameter col = 'expr' sets the column col (replaced if it exists) to expr, in which the row's columns whose names are identifiers are variables (null is None, times are RFC 3339 texts), along with the Starlark built-ins and the math module. Expressions run in order, each seeing the columns the earlier ones set. Example: @dm:eval level = \"'hot' if cpu > 90 else 'ok'\" & ratio = 'mem / 100.0'.",
		Params:      []ParamDoc{p("<column>", "expr", false, "", "the expression giving the column's value")}}})
}

// evalOptions are the Starlark dialect of expressions.
var evalOptions = &syntax.FileOptions{Set: true, While: true, Recursion: true}

// maxEvalSteps bounds the work of one expression on one row.
const maxEvalSteps = 1_000_000

func checkEval(p *params) error {
	for _, q := range p.list {
		if _, err := evalOptions.ParseExpr(q.Key, q.Value, 0); err != nil {
			return badParam(q.Key, "is not a valid expression: %v", err)
		}
	}
	return nil
}

func isIdentifier(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	switch s {
	case "and", "break", "continue", "def", "elif", "else", "for", "if", "in", "lambda", "load",
		"not", "or", "pass", "return", "while", "None", "True", "False", "math", guardBinary, guardMethod:
		return false
	}
	return true
}

// compileEval compiles expr as a function of the columns vars (a lambda
// whose parameters are the columns), once for every row.
func compileEval(thread *starlark.Thread, vars []string, expr string) (starlark.Callable, error) {
	expr, err := guardExpr(expr)
	if err != nil {
		return nil, err
	}
	src := "lambda " + strings.Join(vars, ", ") + ": (\n" + expr + "\n)"
	if len(vars) == 0 {
		src = "lambda: (\n" + expr + "\n)"
	}
	env := evalGuards()
	env["math"] = math.Module
	mk, err := starlark.ExprFuncOptions(evalOptions, "expr", src, env)
	if err != nil {
		return nil, err
	}
	fn, err := starlark.Call(thread, mk, nil, nil)
	if err != nil {
		return nil, err
	}
	return fn.(starlark.Callable), nil
}

func fromStarlark(v starlark.Value) any {
	switch x := v.(type) {
	case starlark.NoneType:
		return nil
	case starlark.Bool:
		return bool(x)
	case starlark.Int:
		if n, ok := x.Int64(); ok {
			return n
		}
		f, _ := new(big.Float).SetInt(x.BigInt()).Float64()
		return f
	case starlark.Float:
		return float64(x)
	case starlark.String:
		return string(x)
	}
	return v.String()
}

func runEval(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	thread := &starlark.Thread{Name: "eval"}
	stop := context.AfterFunc(r.ctx, func() { thread.Cancel("cancelled") })
	defer stop()
	cols := in.Columns()
	hints := kindsOf(in)
	idx := colIndex(in)
	rows := rowsOf(in)
	base, made := heldBytes(in), int64(0)
	for _, q := range p.list {
		var vars []string
		var pos []int
		for j, c := range cols {
			if isIdentifier(c) {
				vars = append(vars, c)
				pos = append(pos, j)
			}
		}
		fn, err := compileEval(thread, vars, q.Value)
		if err != nil {
			return nil, badParam(q.Key, "cannot be evaluated: %v", err)
		}
		t, exists := idx[q.Key]
		if !exists {
			t = len(cols)
			idx[q.Key] = t
			cols = append(cols, q.Key)
			hints = append(hints, kAny)
		} else {
			hints[t] = kAny
		}
		args := make(starlark.Tuple, len(pos))
		for i, row := range rows {
			if err := r.ctx.Err(); err != nil {
				return nil, err
			}
			for k, j := range pos {
				args[k] = starvalue.Scalar(norm(row[j]))
			}
			thread.SetMaxExecutionSteps(thread.ExecutionSteps() + maxEvalSteps)
			v, err := starlark.Call(thread, fn, args, nil)
			if err != nil {
				if cerr := r.ctx.Err(); cerr != nil {
					return nil, cerr
				}
				return nil, paramErr(q.Key, "row %d: %v", i, err)
			}
			val := fromStarlark(v)
			// One expression can make a string of a gigabyte: what the
			// values hold counts as they are made, not once the table is.
			if str, ok := val.(string); ok {
				made += int64(len(str))
				if err := r.fits(base + made); err != nil {
					return nil, err
				}
			}
			if exists {
				row[t] = val
			} else {
				rows[i] = append(row, val)
			}
		}
	}
	return build(cols, hints, rows)
}
