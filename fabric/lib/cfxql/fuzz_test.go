//go:build !lean

package cfxql

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that parsing never panics, that every error is a
// *SyntaxError within the query, that the canonical form of a query
// that parses re-parses to the same canonical form, and that the two
// evaluators agree on it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"*", "* GET a, b as 'B'", "cpu > 50 and status is 'CRIT' and region in ['north','east']",
		"device_category is 'SWITCH' and (severity is not in ['INFO','DEBUG'] or status != 'CLOSED') GET device_category, severity, status as 'Incident Status'",
		"i32 >= -3 or f64 < 2.5e1 and not (s ~ 'or')", "ls !^~ 'n' | dict not-in 'a', 'b' & b = true",
		"tsms during 'Jan 1, 2022 10am' to now", "d32 after -10 days", "d64 not during last month",
		"tsms before '2022-01-01T10:00:00+02:00'", "u64 is not null", "nul is empty", "`Col X` ? '^[a-z]+$'",
		"s does not match '\\d'", "i8 in (1, 2, 3)", "f32 is greater than or equal to 1", "s ~$ \"x\\\"y\"",
		"u16 = '80' or s = 80", "a.b.c is one of 1, 'x'", "((i32 = 1))", "tsms after 1641031200000",
	} {
		f.Add(s)
	}
	rec := typedRecord(f)
	dicts := recordDicts(rec)
	f.Fuzz(func(t *testing.T, src string) {
		q, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: %T %v is not a *SyntaxError", src, err, err)
			}
			if se.Col < 1 || se.Col > utf8.RuneCountInString(src)+1 {
				t.Fatalf("%q: column %d out of range", src, se.Col)
			}
			return
		}
		c := q.Canonical()
		q2, err := Parse(c)
		if err != nil {
			t.Fatalf("%q: canonical %q does not parse: %v", src, c, err)
		}
		if c2 := q2.Canonical(); c2 != c {
			t.Fatalf("%q: canonical %q re-parses as %q", src, c, c2)
		}
		q = q.WithNow(fixedNow)
		if _, err := q.Match(dicts[0]); err != nil {
			t.Fatalf("%q: Match: %v", src, err)
		}
		if _, err := q.Mask(rec); err != nil {
			if !strings.HasPrefix(err.Error(), "unknown column ") {
				t.Fatalf("%q: Mask: %v", src, err)
			}
			return
		}
		agree(t, q, rec, dicts)
	})
}
