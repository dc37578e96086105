package engine

import "testing"

func TestGuardExpr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a + 1", `_fabric_binary("+", a , 1)`},
		{"a * b + c", `_fabric_binary("+", _fabric_binary("*", a , b) , c)`},
		{"'%s-%s' % (a, b)", `_fabric_binary("%", '%s-%s' , (a, b))`},
		{"s.replace('a', 'b').upper()", `_fabric_method(s, "replace", 'a', 'b').upper()`},
		{"','.join([x * 2 for x in l])", `_fabric_method(',', "join", [_fabric_binary("*", x , 2) for x in l])`},
		{"'{}'.format()", `_fabric_method('{}', "format")`},
		{"a - b < c", "a - b < c"},
		{"(a\n + b)", "(_fabric_binary(\"+\", a\n , b))"},
		{"'é' + x * 2", `_fabric_binary("+", 'é' , _fabric_binary("*", x , 2))`},
	} {
		got, err := guardExpr(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("guardExpr(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestHostileEvalAllocations: an expression that asks for gigabytes in
// one step is refused before it allocates, with one line; the same
// operations on ordinary sizes give what Starlark gives.
func TestHostileEvalAllocations(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "list repeat", pipeline: `@dm:empty --> @dm:addrow a = 1 --> @dm:eval n = 'len([0] * 1000000000)'`,
			err: "* would make a value of 16000000000 bytes, more than an expression may make"},
		{name: "string repeat", pipeline: `@dm:empty --> @dm:addrow a = 1 --> @dm:eval n = "len('x' * 1000000000)"`,
			err: "* would make a value of 1000000000 bytes"},
		{name: "doubling", pipeline: `@dm:empty --> @dm:addrow s = 'xxxxxxxxxxxxxxxxxxxx' --> @dm:eval n = "len([y for x in [s * 100000] for y in [x + x] for z in [y + y] for w in [z + z + z + z + z + z + z + z + z + z + z + z + z + z + z + z + z + z + z + z]])"`,
			err: "+ would make a value of"},
		{name: "replace", pipeline: `@dm:empty --> @dm:addrow s = 'abcdefghij' --> @dm:eval n = "len((s * 100000).replace('', s * 100000))"`,
			err: ".replace would make a value of"},
		{name: "format", pipeline: `@dm:empty --> @dm:addrow s = 'abcdefghij' --> @dm:eval n = "len(('{0}' * 10000).format(s * 100000))"`,
			err: ".format would make a value of"},
		{name: "percent", pipeline: `@dm:empty --> @dm:addrow s = 'abcdefghij' --> @dm:eval n = "len(('%(k)s' * 10000) % {'k': s * 100000})"`,
			err: "% would make a value of"},
		{name: "range", pipeline: `@dm:empty --> @dm:addrow a = 1 --> @dm:eval n = 'len(list(range(1000000000)))'`,
			err: "range of 1000000000 elements is more than an expression may make"},
		{name: "join", pipeline: `@dm:empty --> @dm:addrow s = 'abcdefghij' --> @dm:eval n = "len((s * 1000000).join([s] * 100))"`,
			err: ".join would make a value of"},
		{name: "ordinary", pipeline: `@dm:empty --> @dm:addrow s = 'ab' & n = 3 --> @dm:eval r = "s * n + '-' + '%d' % n + ','.join(['x', 'y']) + '{}'.format(n) + s.replace('a', 'z') + str(len(range(5)))"`,
			want: "s:object,n:int64,r:object\nab|3|ababab-3x,y3zb5"},
		{name: "errors as before", pipeline: `@dm:empty --> @dm:addrow s = 'ab' --> @dm:eval r = "s + 1"`,
			err: "unknown binary op: string + int"},
	})
}

// FuzzGuardExpr: every expression that parses still parses once guarded.
func FuzzGuardExpr(f *testing.F) {
	for _, s := range []string{"a + 1", "s.replace('a', 'b') * 2", "'%s' % (a,)", "[x + y for x in l for y in m]", "(a\n+\nb)", "f(*a, **k).join(b)", "{'é': x * 2}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if _, err := evalOptions.ParseExpr("expr", expr, 0); err != nil {
			return
		}
		g, err := guardExpr(expr)
		if err != nil {
			t.Fatalf("guardExpr(%q): %v", expr, err)
		}
		if _, err := evalOptions.ParseExpr("expr", g, 0); err != nil {
			t.Fatalf("guardExpr(%q) = %q does not parse: %v", expr, g, err)
		}
	})
}
