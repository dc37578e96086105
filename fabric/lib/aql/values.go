package aql

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// normalize turns the store's json.Numbers into float64, deeply.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

func canonicalKey(v any) string {
	data, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(data)
}

// truthy is AQL's truth: false, null, 0, "" and nothing else are false
// (empty arrays and objects are true).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

// number converts a value for arithmetic as AQL does (null, false: 0;
// true: 1; a numeric string: its number; anything else: 0).
func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
	case string:
		var f float64
		if _, err := fmt.Sscan(strings.TrimSpace(x), &f); err == nil {
			return f
		}
	case []any:
		if len(x) == 1 {
			return number(x[0])
		}
	}
	return 0
}

// arith is an arithmetic result: a value that is not finite is null.
func arith(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}
