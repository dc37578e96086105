package cfxql

import "time"

// MayMatchRange reports whether a non-null value v with lo <= v <= hi
// may satisfy c, for lo and hi the bounds of a column chunk (as in
// Parquet statistics): false only when none can, so that a reader may
// skip the chunk. It follows the comparison rules of Match: the bounds
// are used only where the comparison orders values as the statistics do
// (numbers against numbers, strings against string literals). Nulls are
// the caller's: OpNull, and a chunk of nulls only, are not asked here.
func (c *Cmp) MayMatchRange(lo, hi any, now time.Time) bool {
	lo, hi = normalize(lo), normalize(hi)
	if _, isBool := lo.(bool); isBool {
		return true
	}
	// cmpLit compares a bound with a literal, when that comparison orders
	// the values the way the statistics do.
	cmpLit := func(v any, l *Lit) (int, bool) {
		if _, isStr := v.(string); isStr && l.kind != LitString {
			return 0, false // a numeric string compares as a number
		}
		return compareLit(v, l, now)
	}
	switch c.op {
	case OpEq, OpIn:
		if c.neg {
			if len(c.lits) != 1 {
				return true
			}
			if n, isNum := lo.(number); isNum && !n.isInt {
				return true // NaN, outside the statistics, is != anything
			}
			// != x: none matches only when every value is x.
			a, okA := cmpLit(lo, &c.lits[0])
			b, okB := cmpLit(hi, &c.lits[0])
			return !(okA && okB && a == 0 && b == 0)
		}
		for i := range c.lits {
			a, okA := cmpLit(lo, &c.lits[i])
			b, okB := cmpLit(hi, &c.lits[i])
			if !okA || !okB || a <= 0 && b >= 0 {
				return true
			}
		}
		return false
	case OpGt, OpGe, OpLt, OpLe:
		bound := hi
		if c.op == OpLt || c.op == OpLe {
			bound = lo
		}
		r, ok := cmpLit(bound, &c.lits[0])
		return !ok || c.op.Holds(r)
	}
	return true
}
