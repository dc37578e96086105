package cfxarrow

import (
	"time"

	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// KeepRowGroup reports whether a row of a Parquet row group with the
// statistics rg may match the condition: false only when none can, so a
// reader may skip the row group. It follows the comparison rules of
// Match (see cfxql.Cmp.MayMatchRange).
func (q *Query) KeepRowGroup(rg frame.RowGroupStats) bool {
	return mayMatch(q.Cond(), rg, q.Now())
}

func mayMatch(n cfxql.Node, rg frame.RowGroupStats, now time.Time) bool {
	switch x := n.(type) {
	case *cfxql.And:
		l, r := x.Operands()
		return mayMatch(l, rg, now) && mayMatch(r, rg, now)
	case *cfxql.Or:
		l, r := x.Operands()
		return mayMatch(l, rg, now) || mayMatch(r, rg, now)
	case *cfxql.Cmp:
		cs, ok := rg.Columns[x.Column()]
		if !ok {
			return true
		}
		return cmpMayMatch(x, cs, rg.Rows, now)
	}
	return true // not, all: no use of the statistics
}

// cmpMayMatch reports whether some row of a column chunk with statistics
// cs (of rows rows) may satisfy c.
func cmpMayMatch(c *cfxql.Cmp, cs frame.ColumnStats, rows int64, now time.Time) bool {
	allNull := cs.HasNulls && cs.Nulls >= rows
	if c.Op() == cfxql.OpNull {
		if !c.Negated() { // is null
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
	return c.MayMatchRange(cs.Min, cs.Max, now)
}
