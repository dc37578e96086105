package aql

import (
	"fmt"
	"regexp"
	"strings"
)

// eval computes an expression in a row, charging the values it makes.
//
// A list, object or subquery holds its parts (charged where they were
// made) and is charged its spine; a call or a range drops what its
// arguments made and is charged what it returns.
func (e *evaluator) eval(x Expr, s scope) (any, error) {
	held := e.held()
	v, err := e.value(x, s)
	if err != nil {
		return nil, err
	}
	switch o := x.(type) {
	case *Array, *Object, *Subquery, *Expand:
		err = e.grow(shallowSize(v))
	case *Call:
		e.shrink(e.held() - held)
		err = e.grow(sizeOf(v))
	case *Binary:
		if o.Op == ".." {
			e.shrink(e.held() - held)
			err = e.grow(sizeOf(v))
		}
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// value computes an expression in a row.
func (e *evaluator) value(x Expr, s scope) (any, error) {
	switch v := x.(type) {
	case *Literal:
		return normalize(v.Value), nil
	case *Var:
		val, ok := s[v.Name]
		if !ok {
			// A collection's name in an expression is its documents,
			// as ArangoDB reads it (RETURN LENGTH(users)), read once
			// per query.
			if docs, ok := e.colls[v.Name]; ok {
				return docs, nil
			}
			docs := []any{}
			var serr error
			if e.src != nil && e.src.Scan(v.Name, func(d map[string]any) bool {
				doc := normalize(d)
				if serr = e.step(); serr == nil {
					serr = e.grow(sizeOf(doc) + ifaceSize)
				}
				docs = append(docs, doc)
				return serr == nil
			}) == nil {
				if serr != nil {
					return nil, serr
				}
				if e.colls == nil {
					e.colls = map[string][]any{}
				}
				e.colls[v.Name] = docs
				return docs, nil
			}
			return nil, &QueryError{1512, fmt.Sprintf("unknown variable '%s'", v.Name)}
		}
		return val, nil
	case *Current:
		return s["\x00current"], nil
	case *Bind:
		return e.binds[v.Name], nil // normalized once, by Run
	case *Attr:
		obj, err := e.eval(v.Obj, s)
		if err != nil {
			return nil, err
		}
		m, _ := obj.(map[string]any)
		return m[v.Name], nil
	case *Index:
		obj, err := e.eval(v.Obj, s)
		if err != nil {
			return nil, err
		}
		i, err := e.eval(v.Index, s)
		if err != nil {
			return nil, err
		}
		switch o := obj.(type) {
		case []any:
			n, ok := i.(float64)
			if !ok {
				return nil, nil
			}
			k := int(n)
			if k < 0 {
				k += len(o)
			}
			if k < 0 || k >= len(o) {
				return nil, nil
			}
			return o[k], nil
		case map[string]any:
			name, _ := i.(string)
			return o[name], nil
		}
		return nil, nil
	case *Expand:
		obj, err := e.eval(v.Obj, s)
		if err != nil {
			return nil, err
		}
		list, _ := obj.([]any)
		out := make([]any, 0, len(list))
		for _, el := range list {
			if err := e.step(); err != nil {
				return nil, err
			}
			if v.Then == nil {
				out = append(out, el)
				continue
			}
			r, err := e.eval(v.Then, s.with("\x00current", el))
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	case *Unary:
		a, err := e.eval(v.X, s)
		if err != nil {
			return nil, err
		}
		switch v.Op {
		case "NOT":
			return !truthy(a), nil
		case "-":
			return arith(-number(a)), nil
		}
		return arith(number(a)), nil
	case *Binary:
		return e.binary(v, s)
	case *Ternary:
		c, err := e.eval(v.Cond, s)
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			if v.Then == nil {
				return c, nil
			}
			return e.eval(v.Then, s)
		}
		return e.eval(v.Else, s)
	case *Array:
		out := make([]any, len(v.Elems))
		for i, el := range v.Elems {
			r, err := e.eval(el, s)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case *Object:
		out := map[string]any{}
		for _, f := range v.Fields {
			name := f.Name
			if f.Computed != nil {
				k, err := e.eval(f.Computed, s)
				if err != nil {
					return nil, err
				}
				name = toString(k)
			}
			r, err := e.eval(f.Value, s)
			if err != nil {
				return nil, err
			}
			out[name] = r
		}
		return out, nil
	case *Subquery:
		r, err := e.query(v.Query, s)
		if err != nil {
			return nil, err
		}
		return r, nil
	case *Call:
		args := make([]any, len(v.Args))
		for i, a := range v.Args {
			r, err := e.eval(a, s)
			if err != nil {
				return nil, err
			}
			args[i] = r
		}
		if v.Name == "DOCUMENT" {
			return e.document(args)
		}
		if fn, ok := evalFunctions[v.Name]; ok {
			return fn(e, args)
		}
		return call(v.Name, args)
	}
	return nil, &QueryError{1540, fmt.Sprintf("%T is not supported yet", x)}
}

func (e *evaluator) binary(v *Binary, s scope) (any, error) {
	l, err := e.eval(v.L, s)
	if err != nil {
		return nil, err
	}
	// AND and OR return an operand, short-circuiting.
	switch v.Op {
	case "AND":
		if !truthy(l) {
			return l, nil
		}
		return e.eval(v.R, s)
	case "OR":
		if truthy(l) {
			return l, nil
		}
		return e.eval(v.R, s)
	}
	r, err := e.eval(v.R, s)
	if err != nil {
		return nil, err
	}
	switch v.Op {
	case "==":
		return compare(l, r) == 0, nil
	case "!=":
		return compare(l, r) != 0, nil
	case "<":
		return compare(l, r) < 0, nil
	case "<=":
		return compare(l, r) <= 0, nil
	case ">":
		return compare(l, r) > 0, nil
	case ">=":
		return compare(l, r) >= 0, nil
	case "IN", "NOT IN":
		list, _ := r.([]any)
		found := false
		for _, x := range list {
			if compare(l, x) == 0 {
				found = true
				break
			}
		}
		return found == (v.Op == "IN"), nil
	case "LIKE", "NOT LIKE":
		ok, err := like(toString(l), toString(r))
		return ok == (v.Op == "LIKE"), err
	case "=~", "!~":
		re, err := regexp.Compile(toString(r))
		if err != nil {
			return nil, &QueryError{1575, "invalid regular expression: " + err.Error()}
		}
		return re.MatchString(toString(l)) == (v.Op == "=~"), nil
	case "+":
		return arith(number(l) + number(r)), nil
	case "-":
		return arith(number(l) - number(r)), nil
	case "*":
		return arith(number(l) * number(r)), nil
	case "/":
		return arith(number(l) / number(r)), nil
	case "%":
		a, b := number(l), number(r)
		if b == 0 {
			return nil, nil
		}
		return arith(a - b*float64(int64(a/b))), nil
	case "..":
		from, to := int64(number(l)), int64(number(r))
		if to-from > maxRange || from-to > maxRange {
			return nil, &QueryError{32, fmt.Sprintf("resource limit exceeded: a range of more than %d values", maxRange)}
		}
		n := max(to-from, from-to) + 1
		// The range's values are charged before they are made.
		if err := e.grow(listCost(int(n)) + n*floatSize); err != nil {
			return nil, err
		}
		out := make([]any, 0, n)
		step := int64(1)
		if from > to {
			step = -1
		}
		for i := from; ; i += step {
			if err := e.step(); err != nil {
				return nil, err
			}
			out = append(out, float64(i))
			if i == to {
				break
			}
		}
		return out, nil
	}
	return nil, &QueryError{1540, "operator " + v.Op + " is not supported yet"}
}

// maxRange bounds the values a range (a..b) makes.
const maxRange = 10_000_000

// like matches AQL's LIKE: % any run, _ one character, \ escapes.
func like(s, pattern string) (bool, error) {
	var b strings.Builder
	b.WriteString("(?s)^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 < len(pattern) {
				i++
				b.WriteString(regexp.QuoteMeta(string(pattern[i])))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return false, err
	}
	return re.MatchString(s), nil
}

// toString is a value's text as AQL's TO_STRING gives it.
func toString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprint(int64(x))
		}
		return fmt.Sprint(x)
	}
	return canonicalKey(v)
}

// call runs a function.
func call(name string, args []any) (any, error) {
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	switch name {
	case "LENGTH", "COUNT":
		switch x := arg(0).(type) {
		case []any:
			return float64(len(x)), nil
		case map[string]any:
			return float64(len(x)), nil
		case string:
			return float64(len([]rune(x))), nil
		case nil:
			return float64(0), nil
		}
		return float64(len(toString(arg(0)))), nil
	case "CONCAT":
		var b strings.Builder
		for _, a := range args {
			b.WriteString(toString(a))
		}
		return b.String(), nil
	case "UPPER":
		return strings.ToUpper(toString(arg(0))), nil
	case "LOWER":
		return strings.ToLower(toString(arg(0))), nil
	case "TO_STRING":
		return toString(arg(0)), nil
	case "TO_NUMBER":
		return number(arg(0)), nil
	case "SUM", "MAX", "MIN", "AVERAGE", "AVG":
		list, _ := arg(0).([]any)
		var acc any
		n := 0
		for _, x := range list {
			if x == nil {
				continue
			}
			f := number(x)
			switch {
			case acc == nil:
				acc = f
			case name == "SUM" || name == "AVERAGE" || name == "AVG":
				acc = acc.(float64) + f
			case name == "MAX" && f > acc.(float64), name == "MIN" && f < acc.(float64):
				acc = f
			}
			n++
		}
		if name == "SUM" && acc == nil {
			return float64(0), nil
		}
		if (name == "AVERAGE" || name == "AVG") && n > 0 {
			return acc.(float64) / float64(n), nil
		}
		return acc, nil
	}
	if fn, ok := functions[name]; ok {
		return fn(args)
	}
	return nil, &QueryError{1540, fmt.Sprintf("usage of unknown function '%s()'", name)}
}

// document is DOCUMENT(id), DOCUMENT([ids]) and DOCUMENT(collection, key
// or keys): the documents by _id or key, null (or left out of a list)
// when missing. Lookups go through the graph source's vertex index.
func (e *evaluator) document(args []any) (any, error) {
	gs, ok := e.src.(GraphSource)
	if !ok {
		return nil, &QueryError{1540, "this store cannot look documents up"}
	}
	one := func(id string) (any, error) {
		if !strings.Contains(id, "/") {
			return nil, nil
		}
		d, err := vertex(gs, id)
		if d == nil || err != nil {
			return nil, err
		}
		return d, nil
	}
	many := func(prefix string, ids []any) (any, error) {
		out := []any{}
		for _, x := range ids {
			s, ok := x.(string)
			if !ok {
				continue
			}
			d, err := one(prefix + s)
			if err != nil {
				return nil, err
			}
			if d != nil {
				out = append(out, d)
			}
		}
		return out, nil
	}
	switch len(args) {
	case 1:
		switch x := args[0].(type) {
		case string:
			return one(x)
		case []any:
			return many("", x)
		}
		return nil, nil
	case 2:
		coll := toString(args[0])
		switch x := args[1].(type) {
		case string:
			if strings.Contains(x, "/") {
				return one(x)
			}
			return one(coll + "/" + x)
		case []any:
			return many(coll+"/", x)
		}
		return nil, nil
	}
	return nil, &QueryError{1541, "invalid number of arguments for function 'DOCUMENT()'"}
}
