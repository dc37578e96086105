package cfxql

import (
	"errors"
	"math"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fabricops/fabric/fabric/lib/cfxql/internal/cfxqltest"
)

// FuzzParse checks that parsing never panics, that every error is a
// *SyntaxError within the query, that the canonical form of a query
// that parses re-parses to the same canonical form, and that Match
// evaluates it over dicts of every kind of value without panicking.
// (cfxarrow's FuzzAgree checks that the Arrow evaluator agrees.)
func FuzzParse(f *testing.F) {
	for _, s := range cfxqltest.Seeds {
		f.Add(s)
	}
	dicts := append(fixtureDicts(), map[string]any{
		"i32": int32(-3), "i8": int8(1), "u64": uint64(math.MaxUint64), "u16": uint16(80), "f32": float32(1.5),
		"f64": math.NaN(), "b": true, "ls": "north", "s": "x\"y", "d32": cfxqltest.TS("2022-01-10T00:00:00Z"),
		"tsms": time.UnixMilli(1641031200000).UTC(), "dict": "a", "Col X": "abc", "a": map[string]any{"b": map[string]any{"c": 1}},
	}, map[string]any{})
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
		for _, d := range dicts {
			if _, err := q.Match(d); err != nil {
				t.Fatalf("%q: Match: %v", src, err)
			}
		}
	})
}
