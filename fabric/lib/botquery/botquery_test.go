package botquery

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseParams(t *testing.T) {
	cases := []struct {
		query string
		want  map[string]string
		err   string
	}{
		{"", map[string]string{}, ""},
		{"   ", map[string]string{}, ""},
		{"name = 'x'", map[string]string{"name": "x"}, ""},
		{`host = 'web-1' & cpu = 93.5`, map[string]string{"host": "web-1", "cpu": "93.5"}, ""},
		{`a="x y"&b='z'`, map[string]string{"a": "x y", "b": "z"}, ""},
		{`a = 'it''s' & b = "say ""hi"""`, map[string]string{"a": "it's", "b": `say "hi"`}, ""},
		{`re = '\d+\.\w' & e = ''`, map[string]string{"re": `\d+\.\w`, "e": ""}, ""},
		{`a = 'x & y = z'`, map[string]string{"a": "x & y = z"}, ""},
		{"n = -3 & f = 1e3 & w = yes & v = $count & p = /a/b.c", map[string]string{"n": "-3", "f": "1e3", "w": "yes", "v": "$count", "p": "/a/b.c"}, ""},
		{"`Host Name` = 'x' & my.key-1 = 2", map[string]string{"Host Name": "x", "my.key-1": "2"}, ""},
		{"a = 'multi\nline'", map[string]string{"a": "multi\nline"}, ""},
		{"a = 'é' & b = 'ü'", map[string]string{"a": "é", "b": "ü"}, ""},
		{"a", nil, "col 2: expected '=' after 'a', found the end of the query"},
		{"a = ", nil, "col 5: expected a value for 'a', found the end of the query"},
		{"a == 1", nil, "col 3: use '=' rather than '==' in parameters"},
		{"a = 'x", nil, "col 5: unterminated quoted value of 'a'"},
		{"a = 1 b = 2", nil, "col 7: expected '&' between parameters, found 'b'"},
		{"a = 1 &", nil, "col 8: expected a parameter after '&'"},
		{"a = 1 & & b = 2", nil, "col 9: expected a parameter name, found '&'"},
		{"& a = 1", nil, "col 1: expected a parameter name, found '&'"},
		{"a = 1 & a = 2", nil, "col 9: parameter 'a' is given twice"},
		{"é = 1", nil, "col 1: expected a parameter name, found 'é'"},
		{"x = 'é' y", nil, "col 9: expected '&' between parameters, found 'y'"},
		{"`a = 1", nil, "col 1: unterminated `name`"},
		{"`` = 1", nil, "col 1: empty parameter name"},
		{"a = &", nil, "col 5: expected a value for 'a', found '&'"},
		{"a = 1 | b = 2", nil, "col 7: expected '&' between parameters, found '|'"},
	}
	for _, c := range cases {
		got, err := Parse(c.query)
		if c.err != "" {
			var se *SyntaxError
			if err == nil || err.Error() != c.err || !errors.As(err, &se) {
				t.Errorf("Parse(%q): error %v, want %q", c.query, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.query, got, err, c.want)
		}
	}
}

// FuzzParseParams checks that Parse never panics, positions its
// errors inside the query, and that what it parses prints back to the
// same parameters.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{"", "a = 1", `host = 'web-1' & cpu = 93.5`, `a = 'it''s' & b = "x"`,
		"`A B` = c", "a == 1", "a = 'x", "a = 1 & ", "é = 'ü'", "a = $x & b = ${y}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): error %T %v", s, err, err)
			}
			if se.Col < 1 || se.Col > utf8.RuneCountInString(s)+1 {
				t.Fatalf("Parse(%q): column %d out of range", s, se.Col)
			}
			return
		}
		// print back, quoting every value, and parse again
		var keys []string
		for k := range m {
			if strings.Contains(k, "`") {
				t.Fatalf("Parse(%q): key %q holds a backquote", s, k)
			}
			keys = append(keys, k)
		}
		again, err := Parse(Format(keys, m))
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("Parse(%q) = %v; printed back: %v, %v", s, m, again, err)
		}
	})
}
