package cfxqltest

// The cases of the evaluator tests, in groups: each gives the ids of the
// rows of the fixture a query matches. Both evaluators must give them.

// Groups are the evaluator cases, by what they cover.
var Groups = []Group{
	{"Equality", equality()},
	{"Order", order()},
	{"Text", text()},
	{"Membership", membership()},
	{"Nulls", nulls()},
	{"Logic", logic()},
	{"Times", times()},
}

func equality() []Case {
	eq := []string{"=", "==", "is", "equals", "is equal to", "IS EQUAL TO", "Equals"}
	ne := []string{"!=", "is not", "not equals", "is not equal to", "<>"}
	var cases []Case
	cases = append(cases, aliasCases(eq, "host %s 'web-1'", []int64{1})...)
	cases = append(cases, aliasCases(ne, "host %s 'web-1'", []int64{2, 3, 5})...) // null row 4 never compares
	cases = append(cases, aliasCases(eq, "cpu %s 50", []int64{3})...)
	cases = append(cases, aliasCases(ne, "cpu %s 50", []int64{1, 2, 5})...)
	cases = append(cases, []Case{
		{"host = \"web-2\"", []int64{2}},
		{"port = 80", []int64{1}},
		{"port = 80.0", []int64{1}},
		{"port = '80'", []int64{1}}, // a numeric string against a number
		{"port = 'eighty'", nil},    // not comparable
		{"port != 'eighty'", []int64{1, 2, 3, 5}},
		{"cpu = 93.5", []int64{1}},
		{"cpu = -1", nil},
		{"code = 80", []int64{1}}, // numeric strings in a string column
		{"code = 80.0", []int64{1}},
		{"code = '80'", []int64{1}},
		{"code = 'x'", []int64{3}},
		{"up = true", []int64{1, 3}},
		{"up is false", []int64{2, 5}},
		{"up = 'TRUE'", []int64{1, 3}},
		{"up != true", []int64{2, 5}},
		{"up = 1", nil},
		{"host = ['web-1', 'db-1']", []int64{1, 3}}, // a list is membership
		{"host = 'web-1', 'db-1'", []int64{1, 3}},
		{"host != ['web-1', 'db-1']", []int64{2, 5}},
		{"note = ''", []int64{4}},
		{"`host` = 'web-1'", []int64{1}},
		{"ts = '2022-01-15'", []int64{2}},
		{"ts = '2022-01-15T00:00:00Z'", []int64{2}},
		{"ts = 1642204800", []int64{2}},
		{"ts != '2022-01-15'", []int64{1, 3, 5}},
		{"ts = 'nonsense'", nil},
	}...)
	return cases
}

func order() []Case {
	var cases []Case
	cases = append(cases, aliasCases([]string{">", "gt", "is greater than", "GT"}, "cpu %s 50", []int64{1, 5})...)
	cases = append(cases, aliasCases([]string{">=", "gte", "is greater than or equal to"}, "cpu %s 50", []int64{1, 3, 5})...)
	cases = append(cases, aliasCases([]string{"<", "lt", "is less than"}, "cpu %s 50", []int64{2})...)
	cases = append(cases, aliasCases([]string{"<=", "lte", "is less than or equal to"}, "cpu %s 50", []int64{2, 3})...)
	cases = append(cases, []Case{
		{"cpu > 50.0", []int64{1, 5}},
		{"cpu > 49.99", []int64{1, 3, 5}},
		{"cpu > -1e3", []int64{1, 2, 3, 5}},
		{"cpu < 1e2", []int64{1, 2, 3, 5}},
		{"port > 443", []int64{3, 5}},
		{"port >= 443", []int64{2, 3, 5}},
		{"port > 442.5", []int64{2, 3, 5}},
		{"port < 443.5", []int64{1, 2}},
		{"port <= '443'", []int64{1, 2}},
		{"port > 'abc'", nil},
		{"host > 'db'", []int64{1, 2, 3, 5}},
		{"host < 'lb-1'", []int64{3}},
		{"host <= 'lb-1'", []int64{3, 5}},
		{"code > 100", []int64{2, 5}},         // numeric strings read as numbers; 'x' is not one
		{"code > '100'", []int64{1, 2, 3, 5}}, // strings compare lexically
		{"up > false", nil},                   // bools have no order
		{"ts > '2022-01-01'", []int64{1, 2, 5}},
		{"ts >= '2022-01-01T10:00:00Z'", []int64{1, 2, 5}},
		{"ts > '2022-01-01T10:00:00Z'", []int64{2, 5}},
		{"ts < '2022-01-01T10:00:00.5Z'", []int64{1, 3}},
		{"ts <= '2022-01-01T09:59:59.5Z'", []int64{3}},
		{"ts > 1641031200", []int64{2, 5}},
	}...)
	return cases
}

func text() []Case {
	var cases []Case
	cases = append(cases, aliasCases([]string{"~", "contains", "has", "CONTAINS"}, "note %s 'isk'", []int64{1, 3})...)
	cases = append(cases, aliasCases([]string{"!~", "not contains", "does not contain"}, "note %s 'isk'", []int64{4, 5})...)
	cases = append(cases, aliasCases([]string{"?", "matches"}, "note %s '^[Dd]isk'", []int64{1, 3})...)
	cases = append(cases, aliasCases([]string{"!?", "does not match"}, "note %s '^[Dd]isk'", []int64{4, 5})...)
	cases = append(cases, aliasCases([]string{"^~", "starts with"}, "host %s 'web'", []int64{1, 2})...)
	cases = append(cases, aliasCases([]string{"!^~", "does not start with"}, "host %s 'web'", []int64{3, 5})...)
	cases = append(cases, aliasCases([]string{"~$", "ends with"}, "host %s '-1'", []int64{1, 3, 5})...)
	cases = append(cases, aliasCases([]string{"!~$", "does not end with"}, "host %s '-1'", []int64{2})...)
	cases = append(cases, []Case{
		{"note ~ 'Disk'", []int64{3}}, // case-sensitive
		{"note ~ ''", []int64{1, 3, 4, 5}},
		{"note ? '(?i)DISK'", []int64{1, 3}},
		{`note ? '\w+: \w+'`, []int64{5}},
		{"port ~ 44", []int64{2}}, // text form of numbers
		{"port ^~ '80'", []int64{1, 5}},
		{"cpu ~ '.25'", []int64{5}},
		{"cpu ~$ '.5'", []int64{1}},
		{"cpu ? '^50$'", []int64{3}},
		{"up ~ 'ru'", []int64{1, 3}},
		{"ts ^~ '2022-01'", []int64{1, 2}},
		{"ts ~ 'T23:59:59'", []int64{3}},
	}...)
	return cases
}

func membership() []Case {
	in := []string{"in", "is one of", "is among", "is any of", "IN", "is in"}
	notIn := []string{"not in", "not-in", "is not in", "NOT IN", "Not-In"}
	var cases []Case
	for _, list := range []string{"['north', 'east']", "('north','east')", "'north', 'east'", `["north", "east"]`} {
		cases = append(cases, aliasCases(in, "region %s "+list, []int64{1, 3, 5})...)
		cases = append(cases, aliasCases(notIn, "region %s "+list, []int64{2, 4})...)
	}
	cases = append(cases, []Case{
		{"port in 80, 443", []int64{1, 2}},
		{"port in [80, 443.0, 'x']", []int64{1, 2}},
		{"port not in (80, 443)", []int64{3, 5}},
		{"port in ['8080']", []int64{5}},
		{"region in 'west'", []int64{4}},
		{"region in []", nil},
		{"region not in []", []int64{1, 2, 3, 4, 5}},
		{"host in ['web-1', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'lb-1']", []int64{1, 5}}, // a long list
		{"host not in ['web-1']", []int64{2, 3, 5}},
		{"code in [80, 443]", []int64{1, 2}},
		{"code in ['80', 443]", []int64{1, 2}},
		{"up in [true]", []int64{1, 3}},
		{"up in [true, false]", []int64{1, 2, 3, 5}},
		{"cpu in [50, 12]", []int64{2, 3}},
		{"ts in ['2022-01-15', '2022-02-01T12:00:00Z']", []int64{2, 5}},
		{"region in ['north','east'] and port in 80, 5432", []int64{1, 3}},
	}...)
	return cases
}

func nulls() []Case {
	var cases []Case
	for _, col := range []string{"host", "cpu", "port", "up", "ts", "code"} {
		cases = append(cases, aliasCases([]string{"is null", "is none", "is empty", "IS NULL", "= null", "== none"}, col+" %s", []int64{4})...)
		cases = append(cases, aliasCases([]string{"is not null", "notnull", "is not none", "is not empty", "!= null"}, col+" %s", []int64{1, 2, 3, 5})...)
	}
	cases = append(cases, []Case{
		{"note is null", []int64{2}},
		{"note is not null", []int64{1, 3, 4, 5}}, // "" is not null
		{"region is null", nil},
		{"note != 'x'", []int64{1, 3, 4, 5}},
		{"not (note = 'x')", []int64{1, 2, 3, 4, 5}}, // not of a false comparison is true
		{"cpu > 0 or cpu <= 0", []int64{1, 2, 3, 5}},
		{"ts before now or ts after now", []int64{1, 2, 3, 5}},
	}...)
	return cases
}

func logic() []Case {
	return []Case{
		{"*", []int64{1, 2, 3, 4, 5}},
		{"region = 'north' and cpu > 80", []int64{1}},
		{"region = 'north' AND cpu > 80", []int64{1}},
		{"region = 'north' & cpu > 80", []int64{1}},
		{"region = 'north' && cpu > 80", []int64{1}},
		{"region = 'south' or cpu > 80", []int64{1, 2}},
		{"region = 'south' OR cpu > 80", []int64{1, 2}},
		{"region = 'south' | cpu > 80", []int64{1, 2}},
		{"region = 'south' || cpu > 80", []int64{1, 2}},
		// and binds tighter than or.
		{"region = 'south' or region = 'north' and cpu > 80", []int64{1, 2}},
		{"(region = 'south' or region = 'north') and cpu > 80", []int64{1}},
		{"region = 'north' and cpu > 80 or region = 'south'", []int64{1, 2}},
		{"region = 'north' and (cpu > 80 or port = 8080)", []int64{1, 5}},
		{"((region = 'north'))", []int64{1, 5}},
		{"not region = 'north'", []int64{2, 3, 4}},
		{"NOT (region = 'north' or region = 'east')", []int64{2, 4}},
		{"not not region = 'north'", []int64{1, 5}},
		{"region = 'north' and not cpu > 80", []int64{5}},
		{"* and region = 'west'", []int64{4}},
		{"region = 'x' or *", []int64{1, 2, 3, 4, 5}},
		{"region = 'x' and cpu > 1", nil},
		{"region = 'north' or region = 'south' or region = 'east' or region = 'west'", []int64{1, 2, 3, 4, 5}},
	}
}

func times() []Case {
	// now: Saturday 2022-01-15 12:00 UTC. ts: 1: Jan 1 10:00, 2: Jan 15
	// 00:00, 3: Dec 31 23:59:59, 5: Feb 1 12:00.
	return []Case{
		{"ts before '2022-01-01'", []int64{3}},
		{"ts after '2022-01-01'", []int64{1, 2, 5}},
		{"ts after 'Jan 1, 2022 10am'", []int64{2, 5}},
		{"ts after 'jan 1 2022 9:30am'", []int64{1, 2, 5}},
		{"ts before 'January 1, 2022 10 AM'", []int64{3}},
		{"ts before '2022-01-01T10:00:01'", []int64{1, 3}},
		{"ts before '2022-01-01T11:00:00+01:00'", []int64{3}},
		{"ts after '2022-01-01T10:00:00Z'", []int64{2, 5}},
		{"ts after '2022-01-01 09:00'", []int64{1, 2, 5}},
		{"ts after 1641031199", []int64{1, 2, 5}},
		{"ts after 1641031199000", []int64{1, 2, 5}},
		{"ts before now", []int64{1, 2, 3}},
		{"ts before 'now'", []int64{1, 2, 3}},
		{"ts after -10 days", []int64{2, 5}},
		{"ts after '-10 days'", []int64{2, 5}},
		{"ts after -15 minutes", []int64{5}},
		{"ts after -13 hours", []int64{2, 5}},
		{"ts after '-2 hours'", []int64{5}},
		{"ts after -14d", []int64{2, 5}},
		{"ts after 2 weeks ago", []int64{2, 5}},
		{"ts after last 3 days", []int64{2, 5}},
		{"ts after +1 day", []int64{5}},
		{"ts after today", []int64{5}},
		{"ts after yesterday", []int64{2, 5}},
		{"ts before this month", []int64{3}},
		{"ts before this year", []int64{3}},
		{"ts after last month", []int64{1, 2, 3, 5}},
		{"ts during today", []int64{2}},
		{"ts during 'today'", []int64{2}},
		{"ts during yesterday", nil},
		{"ts during this week", []int64{2}},
		{"ts during last week", nil},
		{"ts during this month", []int64{1, 2}},
		{"ts during last month", []int64{3}},
		{"ts during next month", []int64{5}},
		{"ts during this year", []int64{1, 2, 5}},
		{"ts during last year", []int64{3}},
		{"ts during -14 days", []int64{2}},
		{"ts during last 15 days", []int64{1, 2, 3}},
		{"ts during '2022-01-01'", []int64{1}},
		{"ts during '2022-01-01' to '2022-01-15'", []int64{1, 2}},
		{"ts during '2022-01-01 to 2022-01-14'", []int64{1}},
		{"ts during 'Jan 1, 2022 10am' to 'Jan 15, 2022 12am'", []int64{1, 2}},
		{"ts during '2021-12-31T23:59:59Z' to '2022-01-01T10:00:00Z'", []int64{1, 3}},
		{"ts during yesterday to now", []int64{2}},
		{"ts during last month to today", []int64{1, 2, 3}},
		{"ts not during this month", []int64{3, 5}},
		{"ts is not during '2022-01-01' to '2022-01-31'", []int64{3, 5}},
		{"ts not during this month and ts is not null", []int64{3, 5}},
		// Strings and numbers read as times.
		{"note after '2020-01-01'", nil},
		{"port after 0", []int64{1, 2, 3, 5}},
		{"port before 1000", []int64{1, 2}},
	}
}
