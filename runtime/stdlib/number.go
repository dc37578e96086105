package stdlib

import (
	"math"
	"strconv"
	"strings"
)

// shortestDigits returns the shortest decimal digits d (no leading or
// trailing zeros, except "0" for zero) and the exponent n such that the
// finite, non-negative f equals 0.d × 10^n.
func shortestDigits(f float64) (digits string, n int) {
	s := strconv.FormatFloat(f, 'e', -1, 64) // "d.ddde±xx"
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	digits = strings.Replace(mant, ".", "", 1)
	return digits, e + 1
}

// PyFloat formats a finite float like Python's repr: the shortest text that
// reads back as f, with ".0" on integral values, and an exponent
// ("1e+16", "1.5e-05") below 1e-4 or from 1e16 on.
func PyFloat(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	d, n := shortestDigits(f)
	exp := n - 1
	if exp < -4 || exp >= 16 {
		m := d[:1]
		if len(d) > 1 {
			m += "." + d[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		e := strconv.Itoa(exp)
		if len(e) < 2 {
			e = "0" + e
		}
		return sign + m + "e" + es + e
	}
	return sign + fixed(d, n, true)
}

// CanonicalFloat formats a finite float as ECMAScript's Number.prototype.
// toString does (and so RFC 8785): the shortest round-trip digits, written
// without a fraction when f is integral and below 1e21 (1.0 -> "1"), in
// plain decimal from 1e-6 on, and with an exponent ("1e+21", "1e-7")
// otherwise. Negative zero is "0".
func CanonicalFloat(f float64) string {
	if f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	d, n := shortestDigits(f)
	k := len(d)
	if -6 < n && n <= 21 {
		return sign + fixed(d, n, false)
	}
	m := d[:1]
	if k > 1 {
		m += "." + d[1:]
	}
	exp := n - 1
	es := "+"
	if exp < 0 {
		es, exp = "-", -exp
	}
	return sign + m + "e" + es + strconv.Itoa(exp)
}

// fixed writes 0.d × 10^n in positional notation, adding ".0" to integral
// values when pointZero is set.
func fixed(d string, n int, pointZero bool) string {
	k := len(d)
	switch {
	case n <= 0:
		return "0." + strings.Repeat("0", -n) + d
	case n >= k:
		s := d + strings.Repeat("0", n-k)
		if pointZero {
			s += ".0"
		}
		return s
	default:
		return d[:n] + "." + d[n:]
	}
}
