package aql

import (
	"cmp"
	"encoding/json"
	"sort"
	"strings"
)

// OrderedObject is an object result whose attributes keep the order the
// query wrote them in (JSON maps have none): its JSON lists Keys in
// order.
type OrderedObject struct {
	Keys   []string
	Values map[string]any
}

// MarshalJSON writes the object with its keys in order.
func (o OrderedObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, k := range o.Keys {
		if i > 0 {
			b = append(b, ',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o.Values[k])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, kb...), ':'), vb...)
	}
	return append(b, '}'), nil
}

// orderedAs orders an object result as the literal obj wrote its fields
// (computed names, which the literal cannot order, last by name).
func orderedAs(obj *Object, m map[string]any) OrderedObject {
	keys := make([]string, 0, len(m))
	seen := map[string]bool{}
	for _, f := range obj.Fields {
		if f.Computed == nil && !seen[f.Name] {
			if _, ok := m[f.Name]; ok {
				keys = append(keys, f.Name)
				seen[f.Name] = true
			}
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return OrderedObject{Keys: append(keys, rest...), Values: m}
}

// typeRank orders the types as AQL compares them.
func typeRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case float64, int64:
		return 2
	case string:
		return 3
	case []any:
		return 4
	}
	return 5
}

// Compare orders two plain values (nil, bool, float64 or int64, string,
// []any, map[string]any) as AQL's SORT does: null < bool < number <
// string < array < object, arrays element by element, objects by their
// attributes in name order.
func Compare(a, b any) int { return compare(a, b) }

// compare orders two values as AQL does.
func compare(a, b any) int {
	ra, rb := typeRank(a), typeRank(b)
	if ra != rb {
		return ra - rb
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case float64, int64:
		return cmp.Compare(asFloat(x), asFloat(b))
	case string:
		return strings.Compare(x, b.(string))
	case []any:
		y := b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := compare(x[i], y[i]); c != 0 {
				return c
			}
		}
		return len(x) - len(y)
	case map[string]any:
		y := b.(map[string]any)
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		var names []string
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if c := compare(x[k], y[k]); c != 0 {
				return c
			}
		}
	}
	return 0
}

// asFloat is a float64 or int64 as float64.
func asFloat(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	f, _ := v.(float64)
	return f
}
