package aql

import "encoding/json"

// What a query holds is charged to its budget (package budget) as it
// goes, in estimates of the bytes Go spends on each value: close enough
// that a query's charge grows as its memory does, so that the limit stops
// it before the process feels it.

// Estimated sizes, in bytes.
const (
	sliceHeader = 24 // a slice's header
	ifaceSize   = 16 // an any
	mapHeader   = 48 // a map's header
	mapGroup    = 8 + 8*(16+ifaceSize)
	stringHead  = 16 // a string's header
	floatSize   = 8  // a boxed float64
	maxSizeWalk = 64 // how deeply sizeOf looks into a value
)

// mapCost estimates a map[string]any of n entries (a row, an object).
func mapCost(n int) int64 {
	groups := (n + 6) / 7
	if groups < 1 {
		groups = 1
	}
	return mapHeader + int64(groups)*mapGroup
}

// listCost estimates the spine of a []any of n elements.
func listCost(n int) int64 { return sliceHeader + int64(n)*ifaceSize }

// sizeOf estimates the bytes a value holds, its elements included.
func sizeOf(v any) int64 { return sizeAt(v, 0) }

func sizeAt(v any, level int) int64 {
	if level > maxSizeWalk {
		return ifaceSize
	}
	switch x := v.(type) {
	case string:
		return stringHead + int64(len(x))
	case json.Number: // as the store gives numbers
		return stringHead + int64(len(x))
	case float64:
		return floatSize
	case []any:
		n := listCost(len(x))
		for _, e := range x {
			n += sizeAt(e, level+1)
		}
		return n
	case map[string]any:
		n := mapCost(len(x))
		for k, e := range x {
			n += int64(len(k)) + sizeAt(e, level+1)
		}
		return n
	case OrderedObject:
		n := listCost(len(x.Keys)) + sizeAt(x.Values, level+1)
		for _, k := range x.Keys {
			n += stringHead + int64(len(k))
		}
		return n
	}
	return 0
}

// shallowSize estimates what a value made by an expression adds beyond
// the values it refers to: its spine, not its elements (they are charged
// where they are made).
func shallowSize(v any) int64 {
	switch x := v.(type) {
	case string:
		return stringHead + int64(len(x))
	case []any:
		return listCost(len(x))
	case map[string]any:
		n := mapCost(len(x))
		for k := range x {
			n += int64(len(k))
		}
		return n
	}
	return 0
}

// grow charges n bytes the query now holds.
func (e *evaluator) grow(n int64) error {
	if n <= 0 {
		return e.b.Err()
	}
	return e.b.Grow(n)
}

// shrink returns n bytes the query no longer holds.
func (e *evaluator) shrink(n int64) {
	if n > 0 {
		e.b.Shrink(n)
	}
}

// held is the bytes charged now.
func (e *evaluator) held() int64 { return e.b.Held() }

// step charges one iteration of a loop.
func (e *evaluator) step() error { return e.b.Step() }
