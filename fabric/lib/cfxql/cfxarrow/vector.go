package cfxarrow

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/fabricops/fabric/fabric/lib/cfxql"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// Mask evaluates the condition over a record batch, vectorised: each
// comparison runs over a whole column into a bitmap, and the bitmaps are
// combined with and/or. The result has one value per row and no nulls.
// A column the condition names that the batch lacks is an error
// ("unknown column 'cpu'").
func (q *Query) Mask(rec arrow.Record) (*array.Boolean, error) {
	b, err := q.maskBits(rec, q.Now())
	if err != nil {
		return nil, err
	}
	return b.toBoolean(int(rec.NumRows())), nil
}

// maskBits evaluates the condition over rec into a bitset.
func (q *Query) maskBits(rec arrow.Record, now time.Time) (bitset, error) {
	e := &vecEval{rec: rec, n: int(rec.NumRows()), now: now}
	return e.eval(q.Cond(), nil)
}

// vecEval evaluates a condition over one batch.
type vecEval struct {
	rec arrow.Record
	n   int
	now time.Time
}

// eval evaluates n over the batch. Only the rows of care (all when nil)
// need be right: the right side of an and is computed where the left
// holds, that of an or where it does not, and the costly kernels skip
// the other rows.
func (e *vecEval) eval(n cfxql.Node, care bitset) (bitset, error) {
	switch x := n.(type) {
	case *cfxql.All:
		b := newBits(e.n)
		b.fill(e.n)
		return b, nil
	case *cfxql.And:
		xl, xr := x.Operands()
		l, err := e.eval(xl, care)
		if err != nil || l.none() {
			return l, err
		}
		r, err := e.eval(xr, narrow(l, care, false, e.n))
		if err != nil {
			return nil, err
		}
		l.and(r)
		return l, nil
	case *cfxql.Or:
		xl, xr := x.Operands()
		l, err := e.eval(xl, care)
		if err != nil || l.all(e.n) {
			return l, err
		}
		r, err := e.eval(xr, narrow(l, care, true, e.n))
		if err != nil {
			return nil, err
		}
		l.or(r)
		return l, nil
	case *cfxql.Not:
		b, err := e.eval(x.Operand(), care)
		if err != nil {
			return nil, err
		}
		b.invert(e.n)
		return b, nil
	case *cfxql.Cmp:
		idx := e.rec.Schema().FieldIndices(x.Column())
		if len(idx) == 0 {
			return nil, fmt.Errorf("unknown column '%s'", x.Column())
		}
		return leaf(x, e.rec.Column(idx[0]), e.now, care), nil
	}
	return nil, fmt.Errorf("cfxql: unknown cfxql.Node %T", n)
}

// narrow returns the rows where the right side of an and (the rows of l)
// or of an or (those not in l, with inv) matters, within care.
func narrow(l, care bitset, inv bool, n int) bitset {
	out := make(bitset, len(l))
	for i, w := range l {
		if inv {
			w = ^w
		}
		if care != nil {
			w &= care[i]
		}
		out[i] = w
	}
	if len(out) > 0 && inv {
		out[len(out)-1] &= tailMask(n)
	}
	return out
}

// leaf evaluates one comparison over a column.
func leaf(c *cfxql.Cmp, arr arrow.Array, now time.Time, care bitset) bitset {
	n := arr.Len()
	if c.Op() == cfxql.OpNull {
		out := validBits(arr)
		if out == nil {
			out = newBits(n)
			out.fill(n)
		}
		if !c.Negated() {
			out.invert(n)
		}
		return out
	}
	if arr.NullN() == n { // null-typed arrays included
		return newBits(n)
	}
	if d, ok := arr.(*array.Dictionary); ok {
		return dictLeaf(c, d, now, care)
	}
	out := newBits(n)
	if !fastLeaf(c, arr, now, care, out) {
		genericLeaf(c, arr, now, care, out)
		return out
	}
	if c.Negated() {
		out.invert(n)
	}
	if valid := validBits(arr); valid != nil {
		out.and(valid)
	}
	return out
}

// genericLeaf evaluates a comparison row by row through the dict
// semantics (cfxql.Cmp.Match), for the types and operators without a typed
// kernel. It handles nulls and negation itself.
func genericLeaf(c *cfxql.Cmp, arr arrow.Array, now time.Time, care, out bitset) {
	eachRow(arr.Len(), care, func(i int) {
		if c.Match(frame.ValueAt(arr, i), now) {
			out[i>>6] |= 1 << (i & 63)
		}
	})
}

// dictLeaf evaluates a comparison over the (few) values of a dictionary
// and maps the result through the indices.
func dictLeaf(c *cfxql.Cmp, d *array.Dictionary, now time.Time, care bitset) bitset {
	dict := leaf(c, d.Dictionary(), now, nil)
	n := d.Len()
	out := newBits(n)
	valid := validBits(d)
	nullMatches := c.Op() == cfxql.OpNull && !c.Negated()
	if idx, ok := d.Indices().(*array.Int32); ok {
		// The common case, without a call per row.
		vals := idx.Int32Values()
		if care == nil {
			for i, k := range vals {
				var hit bool
				if valid != nil && !valid.get(i) {
					hit = nullMatches // a null's index means nothing
				} else {
					hit = dict.get(int(k))
				}
				if hit {
					out[i>>6] |= 1 << (i & 63)
				}
			}
			return out
		}
		for w, word := range care {
			for word != 0 {
				i := w<<6 + bits.TrailingZeros64(word)
				word &= word - 1
				var hit bool
				if valid != nil && !valid.get(i) {
					hit = nullMatches
				} else {
					hit = dict.get(int(vals[i]))
				}
				if hit {
					out[w] |= 1 << (i & 63)
				}
			}
		}
		return out
	}
	eachRow(n, care, func(i int) {
		var hit bool
		if valid != nil && !valid.get(i) {
			hit = nullMatches
		} else {
			hit = dict.get(d.GetValueIndex(i))
		}
		if hit {
			out[i>>6] |= 1 << (i & 63)
		}
	})
	return out
}

// fastLeaf writes the positive result of a comparison (before negation
// and nulls) over a typed column, or reports false when there is no
// kernel for the column's type and the operator.
func fastLeaf(c *cfxql.Cmp, arr arrow.Array, now time.Time, care, out bitset) bool {
	switch a := arr.(type) {
	case *array.Int64:
		return intLeaf(c, a.Int64Values(), out)
	case *array.Int32:
		return intLeaf(c, a.Int32Values(), out)
	case *array.Int16:
		return intLeaf(c, a.Int16Values(), out)
	case *array.Int8:
		return intLeaf(c, a.Int8Values(), out)
	case *array.Uint32:
		return intLeaf(c, a.Uint32Values(), out)
	case *array.Uint16:
		return intLeaf(c, a.Uint16Values(), out)
	case *array.Uint8:
		return intLeaf(c, a.Uint8Values(), out)
	case *array.Float64:
		return floatLeaf(c, a.Float64Values(), out)
	case *array.Float32:
		return floatLeaf(c, a.Float32Values(), out)
	case *array.Boolean:
		return boolLeaf(c, a, out)
	case *array.String:
		return strLeaf(c, strCol[int32]{offs: a.ValueOffsets(), data: valueBuf(a)}, care, out)
	case *array.LargeString:
		return strLeaf(c, strCol[int64]{offs: a.ValueOffsets(), data: valueBuf(a)}, care, out)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return timeLeaf(c, a.TimestampValues(), unitNanos(unit), now, out)
	case *array.Date32:
		return timeLeaf(c, a.Date32Values(), int64(24*time.Hour), now, out)
	case *array.Date64:
		return timeLeaf(c, a.Date64Values(), int64(time.Millisecond), now, out)
	}
	return false
}

// valueBuf returns the values buffer of a string array (offsets index
// into it).
func valueBuf(a arrow.Array) []byte {
	if bufs := a.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
		return bufs[2].Bytes()
	}
	return nil
}

func unitNanos(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return int64(time.Second)
	case arrow.Millisecond:
		return int64(time.Millisecond)
	case arrow.Microsecond:
		return int64(time.Microsecond)
	}
	return 1
}
