package cfxql

import (
	gocmp "cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// number is an integer or a float.
type number struct {
	isInt bool
	i     int64
	f     float64 // set for both kinds
}

func intNum(i int64) number     { return number{isInt: true, i: i, f: float64(i)} }
func floatNum(f float64) number { return number{f: f} }

// parseNumber reads a string as a number: an integer when it is one,
// else a float. Surrounding spaces are allowed; "inf" and "nan" are not
// numbers here.
func parseNumber(s string) (number, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return number{}, false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return intNum(i), true
	}
	if !isNumber(s) {
		return number{}, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return number{}, false
	}
	return floatNum(f), true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// cmpNumbers compares two numbers: integers exactly, else as floats.
// ok is false when a NaN makes them incomparable.
func cmpNumbers(a, b number) (c int, ok bool) {
	if a.isInt && b.isInt {
		return gocmp.Compare(a.i, b.i), true
	}
	if math.IsNaN(a.f) || math.IsNaN(b.f) {
		return 0, false
	}
	return gocmp.Compare(a.f, b.f), true
}

// normalize turns a Go value into one of the kinds the evaluator knows:
// nil, bool, number, string, time.Time; anything else becomes its text
// (JSON for lists and maps).
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, time.Time:
		return v
	case int:
		return intNum(int64(x))
	case int8:
		return intNum(int64(x))
	case int16:
		return intNum(int64(x))
	case int32:
		return intNum(int64(x))
	case int64:
		return intNum(x)
	case uint:
		return uintNum(uint64(x))
	case uint8:
		return intNum(int64(x))
	case uint16:
		return intNum(int64(x))
	case uint32:
		return intNum(int64(x))
	case uint64:
		return uintNum(x)
	case float32:
		return floatNum(float64(x))
	case float64:
		return floatNum(x)
	case json.Number:
		if n, ok := parseNumber(string(x)); ok {
			return n
		}
		return string(x)
	case *big.Int:
		if x == nil {
			return nil
		}
		if x.IsInt64() {
			return intNum(x.Int64())
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		return floatNum(f)
	case []byte:
		return string(x)
	case *time.Time:
		if x == nil {
			return nil
		}
		return *x
	case fmt.Stringer:
		return x.String()
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprint(v)
}

func uintNum(u uint64) number {
	if u <= math.MaxInt64 {
		return intNum(int64(u))
	}
	return floatNum(float64(u))
}

// formatFloat renders a float as the text operators see it: the
// shortest decimal that reads back to it.
func formatFloat(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// textOf returns the text form of a normalized value (not nil).
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case number:
		if x.isInt {
			return strconv.FormatInt(x.i, 10)
		}
		return formatFloat(x.f)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// epochTime reads a number as a time: epoch seconds, or milliseconds
// when it is over 1e11 (in absolute value).
func epochTime(n number) (time.Time, bool) {
	f := n.f
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return time.Time{}, false
	}
	if math.Abs(f) > 1e11 {
		if n.isInt {
			return time.UnixMilli(n.i).UTC(), true
		}
		f /= 1000
	} else if n.isInt {
		return time.Unix(n.i, 0).UTC(), true
	}
	if math.Abs(f) > 1e15 {
		return time.Time{}, false
	}
	sec := math.Floor(f)
	return time.Unix(int64(sec), int64((f-sec)*1e9)).UTC(), true
}

// asTime reads a normalized value as a time: a time itself, a string in
// an absolute time format, or a number (epoch seconds or milliseconds).
func asTime(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		t, _, ok := parseAbsTime(x)
		return t, ok
	case number:
		return epochTime(x)
	}
	return time.Time{}, false
}

// compareLit compares a normalized value (not nil) with a literal:
// numbers numerically (a numeric string against a number is converted),
// strings lexically, times as instants, bools for equality only. ok is
// false when the two are not comparable; ordered tells whether c is an
// order (false for bools, whose c only tells equality).
func compareLit(v any, l *Lit, now time.Time) (c int, ok bool) {
	switch x := v.(type) {
	case number:
		if l.numOK {
			return cmpNumbers(x, l.n)
		}
	case string:
		switch l.kind {
		case LitString:
			return strings.Compare(x, l.s), true
		case LitNumber:
			if n, ok := parseNumber(x); ok {
				return cmpNumbers(n, l.n)
			}
		}
	case bool:
		switch l.kind {
		case LitBool:
			return eqInt(x == l.b), true
		case LitString:
			return eqInt(strings.EqualFold(l.s, strconv.FormatBool(x))), true
		}
	case time.Time:
		if l.t != nil {
			return x.Compare(l.t.point(now)), true
		}
	}
	return 0, false
}

// eqInt returns 0 when equal, 1 otherwise (an "order" for equality only).
func eqInt(eq bool) int {
	if eq {
		return 0
	}
	return 1
}
