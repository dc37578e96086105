package cfxarrow

import (
	"bytes"
	"github.com/fabricops/fabric/fabric/lib/cfxql"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// The kernels below write the positive result of a comparison into a
// bitset, 64 rows to a word, without branches in the inner loops: every
// order comparison is a range test lo <= v <= hi. They OR into the
// bitset, so that the values of a list accumulate.

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32
}

type numeric interface {
	integer | ~float32 | ~float64
}

// b2u converts a bool to 0 or 1 (compiled without a branch).
func b2u(b bool) uint64 {
	var r uint64
	if b {
		r = 1
	}
	return r
}

// rangeInts sets the rows whose value is in [lo, hi] (lo <= hi).
func rangeInts[T integer](vals []T, lo, hi int64, out bitset) {
	span := uint64(hi - lo)
	for w := range out {
		base := w << 6
		chunk := vals[base:min(base+64, len(vals))]
		var word uint64
		for j, v := range chunk {
			word |= b2u(uint64(int64(v)-lo) <= span) << uint(j)
		}
		out[w] |= word
	}
}

// rangeFloats sets the rows whose value, as a float64, is in [lo, hi]
// (NaN never is).
func rangeFloats[T numeric](vals []T, lo, hi float64, out bitset) {
	for w := range out {
		base := w << 6
		chunk := vals[base:min(base+64, len(vals))]
		var word uint64
		for j, v := range chunk {
			f := float64(v)
			word |= (b2u(f >= lo) & b2u(f <= hi)) << uint(j)
		}
		out[w] |= word
	}
}

// intRange returns the integer range of an order operator against x (an
// integer value, or a time with inexact set when it falls strictly
// between x and x+1). ok is false when no integer satisfies it.
func intRange(o cfxql.Op, x int64, inexact bool) (lo, hi int64, ok bool) {
	switch o {
	case cfxql.OpEq:
		return x, x, !inexact
	case cfxql.OpGt:
		return x + 1, math.MaxInt64, x != math.MaxInt64
	case cfxql.OpGe:
		if inexact {
			return x + 1, math.MaxInt64, x != math.MaxInt64
		}
		return x, math.MaxInt64, true
	case cfxql.OpLt:
		if inexact {
			return math.MinInt64, x, true
		}
		return math.MinInt64, x - 1, x != math.MinInt64
	case cfxql.OpLe:
		return math.MinInt64, x, true
	}
	return 0, 0, false
}

// floatRange returns the float range of an order operator against x.
func floatRange(o cfxql.Op, x float64) (lo, hi float64, ok bool) {
	inf := math.Inf(1)
	switch o {
	case cfxql.OpEq:
		return x, x, true
	case cfxql.OpGt:
		return math.Nextafter(x, inf), inf, x != inf
	case cfxql.OpGe:
		return x, inf, true
	case cfxql.OpLt:
		return -inf, math.Nextafter(x, -inf), x != -inf
	case cfxql.OpLe:
		return -inf, x, true
	}
	return 0, 0, false
}

// numOp returns the operator a numeric kernel runs for c (in counts as
// =), or false when there is no numeric kernel for it.
func numOp(c *cfxql.Cmp) (cfxql.Op, bool) {
	switch c.Op() {
	case cfxql.OpEq, cfxql.OpIn:
		return cfxql.OpEq, true
	case cfxql.OpGt, cfxql.OpGe, cfxql.OpLt, cfxql.OpLe:
		return c.Op(), true
	}
	return 0, false
}

// intLeaf compares an integer column with number literals (a string
// that reads as a number counts; other literals match nothing, as in
// cfxql.Cmp.Match): exactly with an integer, as floats with a float.
func intLeaf[T integer](c *cfxql.Cmp, vals []T, out bitset) bool {
	o, ok := numOp(c)
	if !ok {
		return false
	}
	for _, l := range c.Lits() {
		if x, isInt := l.Int(); isInt {
			if lo, hi, ok := intRange(o, x, false); ok {
				rangeInts(vals, lo, hi, out)
			}
		} else if f, isNum := l.Float(); isNum {
			if lo, hi, ok := floatRange(o, f); ok {
				rangeFloats(vals, lo, hi, out)
			}
		}
	}
	return true
}

// floatLeaf compares a float column with number literals.
func floatLeaf[T ~float32 | ~float64](c *cfxql.Cmp, vals []T, out bitset) bool {
	o, ok := numOp(c)
	if !ok {
		return false
	}
	for _, l := range c.Lits() {
		if f, isNum := l.Float(); isNum {
			if lo, hi, ok := floatRange(o, f); ok {
				rangeFloats(vals, lo, hi, out)
			}
		}
	}
	return true
}

// boolLeaf compares a bool column with true, false, or the strings
// "true" and "false" (any case). Order operators match nothing.
func boolLeaf(c *cfxql.Cmp, a *array.Boolean, out bitset) bool {
	switch c.Op() {
	case cfxql.OpGt, cfxql.OpGe, cfxql.OpLt, cfxql.OpLe:
		return true
	case cfxql.OpEq, cfxql.OpIn:
	default:
		return false
	}
	var wantTrue, wantFalse bool
	for _, l := range c.Lits() {
		switch l.Kind() {
		case cfxql.LitBool:
			b, _ := l.Bool()
			wantTrue = wantTrue || b
			wantFalse = wantFalse || !b
		case cfxql.LitString:
			wantTrue = wantTrue || strings.EqualFold(l.Text(), "true")
			wantFalse = wantFalse || strings.EqualFold(l.Text(), "false")
		}
	}
	n := a.Len()
	if !wantTrue && !wantFalse {
		return true
	}
	if wantTrue && wantFalse {
		out.fill(n)
		return true
	}
	vals := readBitmap(a.Data().Buffers()[1].Bytes(), a.Data().Offset(), n)
	if wantFalse {
		vals.invert(n)
	}
	copy(out, vals)
	return true
}

// strCol is a string column: row i is data[offs[i]:offs[i+1]].
type strCol[O int32 | int64] struct {
	offs []O
	data []byte
}

// strLeaf compares a string column with string literals: equality and
// order lexically, the text operators and regexes. A number literal
// (compared with the value read as a number) goes row by row through
// Cmp.Match. Only the rows of care (all when nil) are computed.
func strLeaf[O int32 | int64](c *cfxql.Cmp, s strCol[O], care, out bitset) bool {
	lits := c.Lits()
	switch c.Op() {
	case cfxql.OpEq, cfxql.OpIn:
		var want []string
		for _, l := range lits {
			switch l.Kind() {
			case cfxql.LitNumber:
				return false
			case cfxql.LitString:
				want = append(want, l.Text())
			}
		}
		strIn(s, want, care, out)
	case cfxql.OpGt, cfxql.OpGe, cfxql.OpLt, cfxql.OpLe:
		l := lits[0]
		switch l.Kind() {
		case cfxql.LitNumber:
			return false
		case cfxql.LitString:
			x := []byte(l.Text())
			strEach(s, care, out, func(v []byte) bool { return c.Op().Holds(bytes.Compare(v, x)) })
		}
	case cfxql.OpContains:
		x := []byte(lits[0].Text())
		if len(x) == 1 {
			strEach(s, care, out, func(v []byte) bool { return bytes.IndexByte(v, x[0]) >= 0 })
		} else {
			strEach(s, care, out, func(v []byte) bool { return bytes.Contains(v, x) })
		}
	case cfxql.OpStarts:
		x := []byte(lits[0].Text())
		strEach(s, care, out, func(v []byte) bool { return bytes.HasPrefix(v, x) })
	case cfxql.OpEnds:
		x := []byte(lits[0].Text())
		strEach(s, care, out, func(v []byte) bool { return bytes.HasSuffix(v, x) })
	case cfxql.OpMatches:
		strEach(s, care, out, c.Regexp().Match)
	default:
		return false
	}
	return true
}

// eachRow calls f with every row of n in care (all when care is nil).
// It is for the kernels whose per-row work outweighs the call.
func eachRow(n int, care bitset, f func(i int)) {
	if care == nil {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	for w, word := range care {
		for word != 0 {
			f(w<<6 + bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
}

// strEach sets the rows for which f holds.
func strEach[O int32 | int64](s strCol[O], care, out bitset, f func([]byte) bool) {
	eachRow(len(s.offs)-1, care, func(i int) {
		if f(s.data[s.offs[i]:s.offs[i+1]]) {
			out[i>>6] |= 1 << (i & 63)
		}
	})
}

// strIn sets the rows equal to one of want.
func strIn[O int32 | int64](s strCol[O], want []string, care, out bitset) {
	n := len(s.offs) - 1
	switch {
	case len(want) == 0:
	case len(want) == 1 && care == nil:
		x := want[0]
		for i := 0; i < n; i++ {
			lo, hi := s.offs[i], s.offs[i+1]
			if int(hi-lo) == len(x) && string(s.data[lo:hi]) == x {
				out[i>>6] |= 1 << (i & 63)
			}
		}
	case len(want) == 1:
		x := want[0]
		for w, word := range care {
			for word != 0 {
				i := w<<6 + bits.TrailingZeros64(word)
				word &= word - 1
				lo, hi := s.offs[i], s.offs[i+1]
				if int(hi-lo) == len(x) && string(s.data[lo:hi]) == x {
					out[w] |= 1 << (i & 63)
				}
			}
		}
	case len(want) <= 8:
		eachRow(n, care, func(i int) {
			v := s.data[s.offs[i]:s.offs[i+1]]
			for _, x := range want {
				if len(v) == len(x) && string(v) == x {
					out[i>>6] |= 1 << (i & 63)
					return
				}
			}
		})
	default:
		set := make(map[string]struct{}, len(want))
		for _, x := range want {
			set[x] = struct{}{}
		}
		eachRow(n, care, func(i int) {
			if _, ok := set[string(s.data[s.offs[i]:s.offs[i+1]])]; ok {
				out[i>>6] |= 1 << (i & 63)
			}
		})
	}
}

// timeLeaf compares a time column (integers in units of unit
// nanoseconds since the epoch: timestamps, dates) with time literals,
// and runs before, after and during, as integer ranges.
func timeLeaf[T ~int32 | ~int64](c *cfxql.Cmp, vals []T, unit int64, now time.Time, out bitset) bool {
	switch c.Op() {
	case cfxql.OpEq, cfxql.OpIn, cfxql.OpGt, cfxql.OpGe, cfxql.OpLt, cfxql.OpLe:
		o := c.Op()
		if o == cfxql.OpIn {
			o = cfxql.OpEq
		}
		for _, l := range c.Lits() {
			t, ok := l.Time(now)
			if !ok {
				continue
			}
			x, inexact := inUnits(t, unit)
			if lo, hi, ok := intRange(o, x, inexact); ok {
				rangeInts(vals, lo, hi, out)
			}
		}
	case cfxql.OpBefore, cfxql.OpAfter:
		o := cfxql.OpLt
		if c.Op() == cfxql.OpAfter {
			o = cfxql.OpGt
		}
		x, inexact := inUnits(c.Point(now), unit)
		if lo, hi, ok := intRange(o, x, inexact); ok {
			rangeInts(vals, lo, hi, out)
		}
	case cfxql.OpDuring:
		start, end, incl := c.Span(now)
		s, sx := inUnits(start, unit)
		e, ex := inUnits(end, unit)
		lo, _, ok1 := intRange(cfxql.OpGe, s, sx)
		o := cfxql.OpLt
		if incl {
			o = cfxql.OpLe
		}
		_, hi, ok2 := intRange(o, e, ex)
		if ok1 && ok2 && lo <= hi {
			rangeInts(vals, lo, hi, out)
		}
	default:
		return false
	}
	return true
}

// inUnits returns floor(t / unit) counted from the epoch, and whether t
// falls strictly inside that unit (is not a whole number of units).
// Times out of the int64 range saturate (inexactly).
func inUnits(t time.Time, unit int64) (x int64, inexact bool) {
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	if unit >= int64(time.Second) {
		d := unit / int64(time.Second)
		x = sec / d
		if sec%d < 0 {
			x--
		}
		return x, nsec != 0 || sec-x*d != 0
	}
	per := int64(time.Second) / unit
	switch {
	case sec > math.MaxInt64/per-1:
		return math.MaxInt64, true
	case sec < math.MinInt64/per+1:
		return math.MinInt64, true
	}
	return sec*per + nsec/unit, nsec%unit != 0
}
