// Package cfxqltest holds what the tests of cfxql (over dicts) and of
// cfxarrow (over Arrow batches) share, so that the two evaluators are
// held to the same expectations: a fixture table, its now, evaluator
// cases with their expected rows, and fuzz seeds. It imports no Arrow.
package cfxqltest

import (
	"fmt"
	"time"
)

// Now is the now of the tests: Saturday 15 January 2022, noon UTC.
var Now = time.Date(2022, 1, 15, 12, 0, 0, 0, time.UTC)

// TS parses an RFC 3339 time; it panics on a bad one.
func TS(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Cols are the columns of the fixture table; id (column 0) names the
// rows.
var Cols = []string{"id", "host", "cpu", "port", "up", "ts", "region", "note", "code"}

// Rows are the rows of the fixture table (nil is null).
var Rows = [][]any{
	{1, "web-1", 93.5, 80, true, TS("2022-01-01T10:00:00Z"), "north", "disk full", "80"},
	{2, "web-2", 12.0, 443, false, TS("2022-01-15T00:00:00Z"), "south", nil, "443"},
	{3, "db-1", 50.0, 5432, true, TS("2021-12-31T23:59:59Z"), "east", "Disk ok", "x"},
	{4, nil, nil, nil, nil, nil, "west", "", nil},
	{5, "lb-1", 75.25, 8080, false, TS("2022-02-01T12:00:00Z"), "north", "error: timeout", "8080"},
}

// Case is a query and the ids of the fixture rows it matches (nil for
// none), evaluated at Now.
type Case struct {
	Query string
	Want  []int64
}

// Group is a named list of cases.
type Group struct {
	Name  string
	Cases []Case
}

// aliasCases expands a query template (with %s for the operator) over
// every spelling of an operator, with the same expectation.
func aliasCases(spellings []string, format string, want []int64) []Case {
	var out []Case
	for _, s := range spellings {
		out = append(out, Case{fmt.Sprintf(format, s), want})
	}
	return out
}

// Seeds are the seed corpus of the fuzz tests: queries over the columns
// of cfxarrow's typed test batch (i32, i8, u64, u16, f32, f64, b, ls, s,
// d32, d64, tsms, dict, nul, `Col X`).
var Seeds = []string{
	"*", "* GET a, b as 'B'", "cpu > 50 and status is 'CRIT' and region in ['north','east']",
	"device_category is 'SWITCH' and (severity is not in ['INFO','DEBUG'] or status != 'CLOSED') GET device_category, severity, status as 'Incident Status'",
	"i32 >= -3 or f64 < 2.5e1 and not (s ~ 'or')", "ls !^~ 'n' | dict not-in 'a', 'b' & b = true",
	"tsms during 'Jan 1, 2022 10am' to now", "d32 after -10 days", "d64 not during last month",
	"tsms before '2022-01-01T10:00:00+02:00'", "u64 is not null", "nul is empty", "`Col X` ? '^[a-z]+$'",
	"s does not match '\\d'", "i8 in (1, 2, 3)", "f32 is greater than or equal to 1", "s ~$ \"x\\\"y\"",
	"u16 = '80' or s = 80", "a.b.c is one of 1, 'x'", "((i32 = 1))", "tsms after 1641031200000",
}
