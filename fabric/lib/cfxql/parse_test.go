package cfxql

import (
	"errors"
	"slices"
	"testing"
)

func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ query, err string }{
		{"", "col 1: empty query"},
		{"   ", "col 1: empty query"},
		{"region in ", "col 11: expected a value after 'in'"},
		{"status = 'x' in", "col 14: unexpected 'in' (expected and, or, GET or the end)"},
		{"region is one of", "col 17: expected a value after 'is one of'"},
		{"region in and", "col 11: expected a value after 'in', found 'and'"},
		{"region in [", "col 11: unclosed '['"},
		{"region in ['a', 'b'", "col 11: unclosed '['"},
		{"region in ['a' 'b']", "col 16: expected ',' or ']' in the list, found 'b'"},
		{"region in ('a', x)", "col 17: expected a value after 'in', found 'x' (quote strings: 'x')"},
		{"foo", "col 4: expected an operator after 'foo'"},
		{"foo bar 'x'", "col 5: unknown operator 'bar'"},
		{"cpu foo 5", "col 5: unknown operator 'foo'"},
		{"cpu !! 5", "col 5: unexpected character '!'"},
		{"cpu ) 5", "col 5: expected an operator after 'cpu', found ')'"},
		{"cpu >", "col 6: expected a value after '>'"},
		{"cpu is greater than", "col 20: expected a value after 'is greater than'"},
		{"status is CRIT", "col 11: expected a value after 'is', found 'CRIT' (quote strings: 'CRIT')"},
		{"host = 'abc", "col 8: unclosed quote '"},
		{`host = "abc`, `col 8: unclosed quote "`},
		{"`host = 1", "col 1: unclosed quote `"},
		{"`` = 1", "col 1: empty column name"},
		{"(cpu > 5", "col 1: unclosed '('"},
		{"(cpu > 5 or (cpu < 2)", "col 1: unclosed '('"},
		{"cpu > 5)", "col 8: unexpected ')' without a matching '('"},
		{"()", "col 2: expected a condition inside '()'"},
		{"cpu > 5 6", "col 9: unexpected '6' (expected and, or, GET or the end)"},
		{"* foo", "col 3: unexpected 'foo' (expected and, or, GET or the end)"},
		{"cpu > 5 and", "col 12: expected a condition after 'and'"},
		{"cpu > 5 or", "col 11: expected a condition after 'or'"},
		{"cpu > 5 &", "col 10: expected a condition after '&'"},
		{"not", "col 4: expected a condition after 'not'"},
		{"in = 5", "col 1: expected a column name, found the keyword 'in' (write `in` for a column of that name)"},
		{"cpu > 5 and and = 1", "col 13: expected a column name, found the keyword 'and' (write `and` for a column of that name)"},
		{"-5 > 3", "col 1: expected a column name, found '-5'"},
		{"héllo = 1", "col 2: unexpected character 'é' (write such column names in backquotes: `name`)"},
		{"cpu = 1 @", "col 9: unexpected character '@'"},
		{"host ? '('", "col 8: bad regex '(': missing closing ): `(`"},
		{"host matches '[a-'", "col 14: bad regex '[a-': missing closing ]: `[a-`"},
		{"ts before 'whenever'", "col 11: bad time 'whenever' (expected a date such as '2022-01-31', an ISO 8601 time, 'Jan 1, 2022 10am' or a relative time such as '-2 hours' or 'this month')"},
		{"ts after soon", "col 10: bad time 'soon' (expected now, today, yesterday, this week, last month, -10 days, a quoted date...)"},
		{"ts during", "col 10: expected a time after 'during'"},
		{"ts during today to", "col 19: expected a time after 'to'"},
		{"ts before 'Feb 30, 2022'", "col 11: bad time 'Feb 30, 2022' (expected a date such as '2022-01-31', an ISO 8601 time, 'Jan 1, 2022 10am' or a relative time such as '-2 hours' or 'this month')"},
		{"GET a", "col 1: expected a condition or * before GET"},
		{"cpu = 5 GET", "col 12: expected a column name after GET"},
		{"cpu = 5 get a,", "col 15: expected a column name"},
		{"* GET a as", "col 11: expected an alias after 'as'"},
		{"* GET a as ''", "col 12: empty alias"},
		{"* GET in", "col 7: expected a column name after GET, found the keyword 'in' (write `in` for a column of that name)"},
		// Columns count characters, not bytes.
		{"`é` = 'ü' and x ~", "col 18: expected a value after '~'"},
	} {
		_, err := Parse(c.query)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: got %v, want a *SyntaxError", c.query, err)
			continue
		}
		if err.Error() != c.err {
			t.Errorf("%q:\n got %s\nwant %s", c.query, err, c.err)
		}
	}
}

func TestProjection(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []Column
	}{
		{"cpu > 1", nil},
		{"*", nil},
		{"* GET host", []Column{{Name: "host"}}},
		{"* get host, cpu", []Column{{Name: "host"}, {Name: "cpu"}}},
		{"cpu > 1 GeT host as 'Host Name', `Col X` AS \"x\", region as r", []Column{{"host", "Host Name"}, {"Col X", "x"}, {"region", "r"}}},
		{"device_category is 'SWITCH' and (severity is not in ['INFO','DEBUG'] or status != 'CLOSED') GET device_category, severity, status as 'Incident Status'",
			[]Column{{Name: "device_category"}, {Name: "severity"}, {"status", "Incident Status"}}},
	} {
		q, err := Parse(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got := q.Projection(); !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%s: Projection %v, want %v", c.query, got, c.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	for _, c := range []struct{ query, want string }{
		{"*", "*"},
		{"* get a", "* GET a"},
		{"cpu gt 5", "cpu > 5"},
		{"a is 'x' AND b is not equal to \"y\"", "a = 'x' and b != 'y'"},
		{"a = 1 or b = 2 and c = 3", "a = 1 or b = 2 and c = 3"},
		{"(a = 1 or b = 2) and c = 3", "(a = 1 or b = 2) and c = 3"},
		{"not a = 1", "not (a = 1)"},
		{"a is one of 'x', 'y'", "a in ['x', 'y']"},
		{"a = ('x')", "a in ['x']"},
		{"a not-in 1, 2", "a not in [1, 2]"},
		{"a is empty", "a is null"},
		{"a notnull", "a is not null"},
		{"a does not contain 'it''s'", ""},
		{`a has 'it\'s'`, `a ~ 'it\'s'`},
		{`a matches '\d+'`, `a ? '\\d+'`},
		{"a starts with 'x'", "a ^~ 'x'"},
		{"ts after -10 days", "ts after '-10 days'"},
		{"ts before now", "ts before 'now'"},
		{"ts during this month", "ts during 'this month'"},
		{"ts during last week", "ts during 'last week'"},
		{"ts during '2022-01-01' to '2022-02-01'", "ts during '2022-01-01' to '2022-02-01'"},
		{"ts not during today", "ts not during 'today'"},
		{"ts after 1641031200", "ts after 1641031200"},
		{"`Col X` = 1 GET `Col X` as 'y', b", "`Col X` = 1 GET `Col X` as 'y', b"},
		{"`in` = 1", "`in` = 1"},
		{"x = true", "x = true"},
	} {
		q, err := Parse(c.query)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: parses", c.query)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if q.String() != c.query {
			t.Errorf("String %q, want the source %q", q.String(), c.query)
		}
		if got := q.Canonical(); got != c.want {
			t.Errorf("%s: Canonical %s, want %s", c.query, got, c.want)
		}
	}
}

func TestQueryAccessors(t *testing.T) {
	q := MustParse("a = 1 and (b ~ 'x' or a > 2) GET c")
	if got := q.Columns(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Columns %v", got)
	}
	if q.MatchesAll() || !MustParse("* GET a").MatchesAll() {
		t.Error("MatchesAll")
	}
	// WithNow returns a copy.
	r := MustParse("t after -1 hours")
	r2 := r.WithNow(fixedNow)
	if !r.now.IsZero() || !r2.now.Equal(fixedNow) {
		t.Error("WithNow changed the original")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParse of a bad query does not panic")
		}
	}()
	MustParse("a =")
}
