package aql

import (
	"math"
	"regexp"
	"sort"
	"strings"
)

// functions are the functions beyond call's aggregates, by name: string,
// array, document, numeric and type functions.
var functions = map[string]func(args []any) (any, error){
	// Strings.
	"CONCAT_SEPARATOR": func(a []any) (any, error) {
		if len(a) == 0 {
			return "", nil
		}
		var parts []string
		for _, x := range a[1:] {
			if l, ok := x.([]any); ok {
				for _, y := range l {
					if y != nil {
						parts = append(parts, toString(y))
					}
				}
			} else if x != nil {
				parts = append(parts, toString(x))
			}
		}
		return strings.Join(parts, toString(arg(a, 0))), nil
	},
	"SUBSTRING": func(a []any) (any, error) {
		r := []rune(toString(arg(a, 0)))
		start := int(number(arg(a, 1)))
		if start < 0 {
			start = max(0, len(r)+start)
		}
		start = min(start, len(r))
		end := len(r)
		if len(a) > 2 && a[2] != nil {
			end = min(len(r), start+max(0, int(number(a[2]))))
		}
		return string(r[start:end]), nil
	},
	"CONTAINS": func(a []any) (any, error) {
		return strings.Contains(toString(arg(a, 0)), toString(arg(a, 1))), nil
	},
	"STARTS_WITH": func(a []any) (any, error) {
		return strings.HasPrefix(toString(arg(a, 0)), toString(arg(a, 1))), nil
	},
	"SPLIT": func(a []any) (any, error) {
		out := []any{}
		for _, p := range strings.Split(toString(arg(a, 0)), toString(arg(a, 1))) {
			out = append(out, p)
		}
		return out, nil
	},
	"TRIM": func(a []any) (any, error) { return strings.TrimSpace(toString(arg(a, 0))), nil },
	"LIKE": func(a []any) (any, error) { return like(toString(arg(a, 0)), toString(arg(a, 1))) },
	"REGEX_TEST": func(a []any) (any, error) {
		re, err := regexp.Compile(toString(arg(a, 1)))
		if err != nil {
			return nil, &QueryError{1575, "invalid regular expression: " + err.Error()}
		}
		return re.MatchString(toString(arg(a, 0))), nil
	},
	// Arrays.
	"FIRST": func(a []any) (any, error) {
		if l := list(arg(a, 0)); len(l) > 0 {
			return l[0], nil
		}
		return nil, nil
	},
	"LAST": func(a []any) (any, error) {
		if l := list(arg(a, 0)); len(l) > 0 {
			return l[len(l)-1], nil
		}
		return nil, nil
	},
	"NTH": func(a []any) (any, error) {
		l, i := list(arg(a, 0)), int(number(arg(a, 1)))
		if i < 0 || i >= len(l) {
			return nil, nil
		}
		return l[i], nil
	},
	"PUSH": func(a []any) (any, error) { return append(append([]any{}, list(arg(a, 0))...), arg(a, 1)), nil },
	"APPEND": func(a []any) (any, error) {
		return append(append([]any{}, list(arg(a, 0))...), list(arg(a, 1))...), nil
	},
	"UNIQUE": func(a []any) (any, error) { return unique(list(arg(a, 0))), nil },
	"SORTED": func(a []any) (any, error) {
		l := append([]any{}, list(arg(a, 0))...)
		sort.SliceStable(l, func(i, j int) bool { return compare(l[i], l[j]) < 0 })
		return l, nil
	},
	"REVERSE": func(a []any) (any, error) {
		if s, ok := arg(a, 0).(string); ok {
			r := []rune(s)
			for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
				r[i], r[j] = r[j], r[i]
			}
			return string(r), nil
		}
		l := list(arg(a, 0))
		out := make([]any, len(l))
		for i, x := range l {
			out[len(l)-1-i] = x
		}
		return out, nil
	},
	"FLATTEN": func(a []any) (any, error) {
		depth := 1
		if len(a) > 1 {
			depth = int(number(a[1]))
		}
		return flatten(list(arg(a, 0)), depth), nil
	},
	"UNION": func(a []any) (any, error) {
		var out []any
		for _, x := range a {
			out = append(out, list(x)...)
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	},
	"POSITION": func(a []any) (any, error) {
		for i, x := range list(arg(a, 0)) {
			if compare(x, arg(a, 1)) == 0 {
				if len(a) > 2 && truthy(a[2]) {
					return float64(i), nil
				}
				return true, nil
			}
		}
		if len(a) > 2 && truthy(a[2]) {
			return float64(-1), nil
		}
		return false, nil
	},
	// Documents.
	"HAS": func(a []any) (any, error) {
		m, _ := arg(a, 0).(map[string]any)
		_, ok := m[toString(arg(a, 1))]
		return ok, nil
	},
	"ATTRIBUTES": func(a []any) (any, error) {
		m, _ := arg(a, 0).(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = k
		}
		return out, nil
	},
	"MERGE": func(a []any) (any, error) {
		out := map[string]any{}
		for _, x := range a {
			if m, ok := x.(map[string]any); ok {
				for k, v := range m {
					out[k] = v
				}
			}
		}
		return out, nil
	},
	"KEEP":  func(a []any) (any, error) { return pick(a, true), nil },
	"UNSET": func(a []any) (any, error) { return pick(a, false), nil },
	"PARSE_IDENTIFIER": func(a []any) (any, error) {
		id := startID(arg(a, 0))
		c, k, _ := strings.Cut(id, "/")
		return map[string]any{"collection": c, "key": k}, nil
	},
	// Numbers.
	"ABS":   func(a []any) (any, error) { return math.Abs(number(arg(a, 0))), nil },
	"FLOOR": func(a []any) (any, error) { return math.Floor(number(arg(a, 0))), nil },
	"CEIL":  func(a []any) (any, error) { return math.Ceil(number(arg(a, 0))), nil },
	"ROUND": func(a []any) (any, error) { return math.Floor(number(arg(a, 0)) + 0.5), nil },
	"SQRT":  func(a []any) (any, error) { return arith(math.Sqrt(number(arg(a, 0)))), nil },
	"POW":   func(a []any) (any, error) { return arith(math.Pow(number(arg(a, 0)), number(arg(a, 1)))), nil },
	// Types.
	"IS_NULL":   func(a []any) (any, error) { return arg(a, 0) == nil, nil },
	"IS_STRING": func(a []any) (any, error) { _, ok := arg(a, 0).(string); return ok, nil },
	"IS_NUMBER": func(a []any) (any, error) { _, ok := arg(a, 0).(float64); return ok, nil },
	"IS_ARRAY":  func(a []any) (any, error) { _, ok := arg(a, 0).([]any); return ok, nil },
	"IS_OBJECT": func(a []any) (any, error) { _, ok := arg(a, 0).(map[string]any); return ok, nil },
	"TO_BOOL":   func(a []any) (any, error) { return truthy(arg(a, 0)), nil },
	"TO_ARRAY": func(a []any) (any, error) {
		switch x := arg(a, 0).(type) {
		case nil:
			return []any{}, nil
		case []any:
			return x, nil
		}
		return []any{arg(a, 0)}, nil
	},
	"NOT_NULL": func(a []any) (any, error) {
		for _, x := range a {
			if x != nil {
				return x, nil
			}
		}
		return nil, nil
	},
}

func arg(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

func list(v any) []any { l, _ := v.([]any); return l }

func unique(l []any) []any {
	out := []any{}
	seen := map[string]bool{}
	for _, x := range l {
		if k := canonicalKey(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

func flatten(l []any, depth int) []any {
	out := []any{}
	for _, x := range l {
		if sub, ok := x.([]any); ok && depth > 0 {
			out = append(out, flatten(sub, depth-1)...)
		} else {
			out = append(out, x)
		}
	}
	return out
}

// pick keeps (or drops) the named attributes of a document.
func pick(a []any, keep bool) map[string]any {
	m, _ := arg(a, 0).(map[string]any)
	names := map[string]bool{}
	if len(a) == 0 {
		return map[string]any{}
	}
	for _, x := range a[1:] {
		if l, ok := x.([]any); ok {
			for _, y := range l {
				names[toString(y)] = true
			}
		} else {
			names[toString(x)] = true
		}
	}
	out := map[string]any{}
	for k, v := range m {
		if names[k] == keep {
			out[k] = v
		}
	}
	return out
}
