package frame

import (
	"math"
	"strconv"
	"time"
	"unsafe"
)

// This file parses the text of a field (CSV, Excel) into typed values
// without allocating: integers, floats, booleans and ISO 8601 dates and
// timestamps.

// str views b as a string without copying; the string must not outlive b.
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// trimSpace trims ASCII blanks around b.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// parseInt parses a decimal int64 with an optional sign.
func parseInt(b []byte) (int64, bool) {
	i := 0
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	if i == len(b) {
		return 0, false
	}
	if len(b)-i > 18 {
		v, err := strconv.ParseInt(str(b), 10, 64)
		return v, err == nil
	}
	var u int64
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, false
		}
		u = u*10 + int64(c)
	}
	if neg {
		u = -u
	}
	return u, true
}

// parseFloat parses a float64 as strconv does (including NaN and Inf).
func parseFloat(b []byte) (float64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	// Reject early what cannot be a number, to spare strconv's error.
	switch c := b[0]; {
	case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'i', c == 'I', c == 'n', c == 'N':
	default:
		return 0, false
	}
	v, err := strconv.ParseFloat(str(b), 64)
	return v, err == nil
}

// parseBool parses true or false in any case.
func parseBool(b []byte) (v, ok bool) {
	switch len(b) {
	case 4:
		return true, (b[0]|0x20) == 't' && (b[1]|0x20) == 'r' && (b[2]|0x20) == 'u' && (b[3]|0x20) == 'e'
	case 5:
		return false, (b[0]|0x20) == 'f' && (b[1]|0x20) == 'a' && (b[2]|0x20) == 'l' && (b[3]|0x20) == 's' && (b[4]|0x20) == 'e'
	}
	return false, false
}

// isoTime is a parsed ISO 8601 date or date-time.
type isoTime struct {
	days     int64 // days since 1970-01-01
	nanos    int64 // nanoseconds since midnight, zone offset applied
	dateOnly bool  // YYYY-MM-DD alone
	zone     bool  // a zone (Z or an offset) was given
}

// unixNanos returns the instant in nanoseconds since the epoch, and false
// when it does not fit an int64 (before 1677-09-21 or after 2262-04-11,
// the bounds of pandas' datetime64[ns]).
func (t isoTime) unixNanos() (int64, bool) {
	const day = 86400 * 1_000_000_000
	// nanos is within two days of midnight: far from the bounds the sum
	// cannot overflow.
	if t.days > -106000 && t.days < 106000 {
		return t.days*day + t.nanos, true
	}
	tm := time.Unix(t.days*86400, t.nanos)
	if tm.Before(minNanos) || tm.After(maxNanos) {
		return 0, false
	}
	return tm.UnixNano(), true
}

// The instants datetime64[ns] holds (math.MinInt64 is NaT).
var (
	minNanos = time.Unix(0, math.MinInt64+1)
	maxNanos = time.Unix(0, math.MaxInt64)
)

func digits(b []byte, n int) (int, bool) {
	if len(b) < n {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int(c)
	}
	return v, true
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

var monthDays = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// parseISO parses YYYY-MM-DD, optionally followed by T (or a space) and
// HH:MM[:SS[.fraction]], optionally followed by Z or an offset ±HH[:MM].
func parseISO(b []byte) (isoTime, bool) {
	var t isoTime
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return t, false
	}
	y, ok1 := digits(b, 4)
	mo, ok2 := digits(b[5:], 2)
	d, ok3 := digits(b[8:], 2)
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > monthDays[mo] {
		return t, false
	}
	if mo == 2 && d == 29 && (y%4 != 0 || (y%100 == 0 && y%400 != 0)) {
		return t, false
	}
	t.days = daysFromCivil(y, mo, d)
	if len(b) == 10 {
		t.dateOnly = true
		return t, true
	}
	if b[10] != 'T' && b[10] != 't' && b[10] != ' ' {
		return t, false
	}
	rest := b[11:]
	h, ok1 := digits(rest, 2)
	if !ok1 || len(rest) < 5 || rest[2] != ':' {
		return t, false
	}
	mi, ok2 := digits(rest[3:], 2)
	if !ok2 || h > 23 || mi > 59 {
		return t, false
	}
	rest = rest[5:]
	s := 0
	var frac int64
	if len(rest) > 0 && rest[0] == ':' {
		var ok bool
		if s, ok = digits(rest[1:], 2); !ok || s > 59 {
			return t, false
		}
		rest = rest[3:]
		if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
			n := 1
			scale := int64(1e8)
			for ; n < len(rest) && rest[n] >= '0' && rest[n] <= '9'; n++ {
				frac += int64(rest[n]-'0') * scale
				scale /= 10
			}
			if n == 1 {
				return t, false
			}
			rest = rest[n:]
		}
	}
	t.nanos = int64(h)*3600e9 + int64(mi)*60e9 + int64(s)*1e9 + frac
	if len(rest) == 0 {
		return t, true
	}
	t.zone = true
	if len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z') {
		return t, true
	}
	if rest[0] != '+' && rest[0] != '-' {
		return t, false
	}
	oh, ok := digits(rest[1:], 2)
	if !ok || oh > 23 {
		return t, false
	}
	om := 0
	switch z := rest[3:]; {
	case len(z) == 0:
	case len(z) == 3 && z[0] == ':':
		om, ok = digits(z[1:], 2)
	case len(z) == 2:
		om, ok = digits(z, 2)
	default:
		ok = false
	}
	if !ok || om > 59 {
		return t, false
	}
	off := int64(oh)*3600e9 + int64(om)*60e9
	if rest[0] == '-' {
		off = -off
	}
	t.nanos -= off
	return t, true
}

// kind is the type of a column read from text.
type kind uint8

const (
	kString kind = iota
	kInt
	kFloat
	kBool
	kDate
	kTimestamp
)

// masks of the kinds a value could be.
const (
	mInt = 1 << iota
	mFloat
	mBool
	mDate
	mTime
	mAll = mInt | mFloat | mBool | mDate | mTime
)

// inferrer infers the kind of one text column from its values.
type inferrer struct {
	mask   int
	values int  // non-null values seen
	zone   bool // a timestamp had a zone
}

func newInferrer() inferrer { return inferrer{mask: mAll} }

// add looks at one (non-empty) value.
func (in *inferrer) add(b []byte) {
	b = trimSpace(b)
	if len(b) == 0 {
		return
	}
	in.values++
	m := in.mask
	if m == 0 {
		return
	}
	if m&mInt != 0 {
		if _, ok := parseInt(b); !ok {
			m &^= mInt
		}
	}
	if m&mFloat != 0 && m&mInt == 0 {
		if _, ok := parseFloat(b); !ok {
			m &^= mFloat
		}
	}
	if m&mBool != 0 {
		if _, ok := parseBool(b); !ok {
			m &^= mBool
		}
	}
	if m&(mDate|mTime) != 0 {
		t, ok := parseISO(b)
		if ok && !t.dateOnly {
			_, ok = t.unixNanos()
		}
		switch {
		case !ok:
			m &^= mDate | mTime
		case !t.dateOnly:
			m &^= mDate
		}
		in.zone = in.zone || (ok && t.zone)
	}
	in.mask = m
}

// kind returns the column's kind: the narrowest that every value fits.
func (in *inferrer) kind() kind {
	switch m := in.mask; {
	case in.values == 0:
		return kString
	case m&mInt != 0:
		return kInt
	case m&mFloat != 0:
		return kFloat
	case m&mBool != 0:
		return kBool
	case m&mDate != 0:
		return kDate
	case m&mTime != 0:
		return kTimestamp
	}
	return kString
}
