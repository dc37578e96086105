package starvalue

import (
	"fmt"
	"time"

	starlarktime "go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// FromStarlark converts a Starlark value to plain Go data:
//
//   - None is nil; bool, float, str and bytes are bool, float64, string and
//     []byte;
//   - int is int64 when it fits, *big.Int otherwise;
//   - list, tuple and set are []any;
//   - dict is a Map in the dict's order; its keys must be strings;
//   - a struct is a Map of its fields in name order;
//   - a time.time is a time.Time and a time.duration a time.Duration.
//
// Other values (functions, modules...) are an error naming their type.
func FromStarlark(v starlark.Value) (any, error) {
	return fromStarlark(v, 0)
}

func fromStarlark(v starlark.Value, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("value nested too deeply (cyclic?)")
	}
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(x), nil
	case starlark.Int:
		if i, ok := x.Int64(); ok {
			return i, nil
		}
		return x.BigInt(), nil
	case starlark.Float:
		return float64(x), nil
	case starlark.String:
		return string(x), nil
	case starlark.Bytes:
		return []byte(x), nil
	case *starlark.List:
		return iterable(x, x.Len(), depth)
	case starlark.Tuple:
		return iterable(x, x.Len(), depth)
	case *starlark.Set:
		return iterable(x, x.Len(), depth)
	case *starlark.Dict:
		m := make(Map, 0, x.Len())
		for _, item := range x.Items() {
			k, ok := item[0].(starlark.String)
			if !ok {
				return nil, fmt.Errorf("dict key must be a string, got %s", item[0].Type())
			}
			e, err := fromStarlark(item[1], depth+1)
			if err != nil {
				return nil, err
			}
			m = append(m, KV{string(k), e})
		}
		return m, nil
	case *starlarkstruct.Struct:
		names := x.AttrNames()
		m := make(Map, 0, len(names))
		for _, name := range names {
			a, err := x.Attr(name)
			if err != nil {
				return nil, err
			}
			e, err := fromStarlark(a, depth+1)
			if err != nil {
				return nil, err
			}
			m = append(m, KV{name, e})
		}
		return m, nil
	case starlarktime.Time:
		return time.Time(x), nil
	case starlarktime.Duration:
		return time.Duration(x), nil
	}
	return nil, fmt.Errorf("cannot convert %s to a Go value", v.Type())
}

func iterable(x starlark.Iterable, n, depth int) ([]any, error) {
	out := make([]any, 0, n)
	it := x.Iterate()
	defer it.Done()
	var e starlark.Value
	for it.Next(&e) {
		g, err := fromStarlark(e, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// Plain turns the ordered maps of FromStarlark (at any depth) into Go
// maps, for code that wants plain JSON values: records, queries on
// nested keys, inputs.
func Plain(v any) any {
	switch x := v.(type) {
	case Map:
		m := make(map[string]any, len(x))
		for _, kv := range x {
			m[kv.Key] = Plain(kv.Value)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Plain(e)
		}
		return out
	}
	return v
}
