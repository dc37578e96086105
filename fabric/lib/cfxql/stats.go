//go:build !lean

package cfxql

import (
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// KeepRowGroup reports whether a row of a Parquet row group with the
// statistics rg may match the condition: false only when none can, so a
// reader may skip the row group. It follows the comparison rules of
// Match: an order over a column's min and max is used only where the
// comparison orders values as the statistics do (numbers against
// numbers, strings against string literals).
func (q *Query) KeepRowGroup(rg frame.RowGroupStats) bool {
	return mayMatch(q.root, rg, q.clock())
}

func mayMatch(n node, rg frame.RowGroupStats, now time.Time) bool {
	switch x := n.(type) {
	case *andNode:
		return mayMatch(x.l, rg, now) && mayMatch(x.r, rg, now)
	case *orNode:
		return mayMatch(x.l, rg, now) || mayMatch(x.r, rg, now)
	case *cmp:
		cs, ok := rg.Columns[x.col]
		if !ok {
			return true
		}
		return cmpMayMatch(x, cs, rg.Rows, now)
	}
	return true // not, all: no use of the statistics
}

// cmpMayMatch reports whether some row of a column chunk with statistics
// cs (of rows rows) may satisfy c.
func cmpMayMatch(c *cmp, cs frame.ColumnStats, rows int64, now time.Time) bool {
	allNull := cs.HasNulls && cs.Nulls >= rows
	if c.op == opNull {
		if !c.neg { // is null
			return !cs.HasNulls || cs.Nulls > 0
		}
		return !allNull // is not null
	}
	if allNull {
		return false // a null satisfies no other comparison
	}
	if !cs.HasMinMax {
		return true
	}
	lo, hi := normalize(cs.Min), normalize(cs.Max)
	if _, isBool := lo.(bool); isBool {
		return true
	}
	// cmpLit compares a bound with a literal, when that comparison orders
	// the values the way the statistics do.
	cmpLit := func(v any, l *lit) (int, bool) {
		if _, isStr := v.(string); isStr && l.kind != litStr {
			return 0, false // a numeric string compares as a number
		}
		return compareLit(v, l, now)
	}
	switch c.op {
	case opEq, opIn:
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
	case opGt, opGe, opLt, opLe:
		bound := hi
		if c.op == opLt || c.op == opLe {
			bound = lo
		}
		r, ok := cmpLit(bound, &c.lits[0])
		return !ok || ordered(c.op, r)
	}
	return true
}
