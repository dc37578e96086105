package aql

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// memSource is collections held in memory, for the tests.
type memSource map[string][]map[string]any

func (m memSource) Scan(coll string, fn func(map[string]any) bool) error {
	docs, ok := m[coll]
	if !ok {
		return &QueryError{1203, "collection or view not found: " + coll}
	}
	for _, d := range docs {
		if !fn(d) {
			break
		}
	}
	return nil
}

var people = memSource{"people": {
	{"_key": "a", "name": "Ann", "age": json.Number("31"), "city": "Oslo", "tags": []any{"x", "y"}},
	{"_key": "b", "name": "Ben", "age": json.Number("25"), "city": "Rome", "tags": []any{"y"}},
	{"_key": "c", "name": "Cy", "age": json.Number("42"), "city": "Oslo", "tags": []any{}},
	{"_key": "d", "name": "Dee", "age": nil, "city": "Lima"},
}}

// TestRun: queries over a small known collection, results written by
// hand.
func TestRun(t *testing.T) {
	for _, c := range []struct {
		src   string
		binds map[string]any
		want  string
	}{
		{"FOR p IN people FILTER p.age > 30 SORT p.name RETURN p.name", nil, `["Ann","Cy"]`},
		{"FOR p IN people SORT p.age DESC LIMIT 1, 2 RETURN p._key", nil, `["a","b"]`},
		{"FOR p IN @@c FILTER p.city == @city RETURN {n: p.name, next: p.age + 1}", map[string]any{"c": "people", "city": "Oslo"},
			`[{"n":"Ann","next":32},{"n":"Cy","next":43}]`},
		{"FOR p IN people RETURN DISTINCT p.city", nil, `["Oslo","Rome","Lima"]`},
		{"LET old = (FOR p IN people FILTER p.age >= 30 RETURN p.name) RETURN LENGTH(old)", nil, `[2]`},
		{"FOR p IN people FILTER p.name LIKE '_e%' && 'y' IN p.tags RETURN p.name", nil, `["Ben"]`},
		{"FOR p IN people FILTER p.age == null RETURN p.name", nil, `["Dee"]`},
		{"FOR x IN 1..4 FILTER x % 2 == 0 RETURN x * 10", nil, `[20,40]`},
		// FOR, FILTERs and LETs, then LIMIT: the scan stops early.
		{"FOR x IN 1..10 FILTER x % 2 == 0 LET y = x * 10 LIMIT 1, 2 RETURN y", nil, `[40,60]`},
		{"FOR p IN people FILTER p.city == 'Oslo' LIMIT 1 RETURN p._key", nil, `["a"]`},
		{"FOR p IN people LIMIT 0 RETURN p._key", nil, `[]`},
		{"FOR c IN ['Oslo', 'Rome'] FOR p IN people FILTER p.city == c LIMIT 2 RETURN p._key", nil, `["a","c"]`},
		{"FOR p IN people LIMIT 1, 10 RETURN p._key", nil, `["b","c","d"]`},
		{"RETURN [{a: 1}, {a: 2}][*].a", nil, `[[1,2]]`},
		// A returned object keeps the order its literal wrote.
		{"FOR p IN people FILTER p._key == 'a' RETURN {name: p.name, age: p.age, [CONCAT('c', 'ity')]: p.city}", nil, `[{"name":"Ann","age":31,"city":"Oslo"}]`},
		{"RETURN CONCAT(UPPER('a'), LOWER('B'), 1, null)", nil, `["Ab1"]`},
		{"RETURN SUM((FOR p IN people RETURN p.age))", nil, `[98]`},
		{"RETURN 0 ?: 'zero'", nil, `["zero"]`},
		{"RETURN null < false && false < 0 && 0 < '' && '' < [] && [] < {}", nil, `[true]`},
		{"FOR p IN people COLLECT city = p.city WITH COUNT INTO n RETURN {city, n}", nil,
			`[{"city":"Lima","n":1},{"city":"Oslo","n":2},{"city":"Rome","n":1}]`},
		{"FOR p IN people COLLECT city = p.city INTO g = p.name RETURN {city, names: g}", nil,
			`[{"city":"Lima","names":["Dee"]},{"city":"Oslo","names":["Ann","Cy"]},{"city":"Rome","names":["Ben"]}]`},
		{"FOR p IN people COLLECT city = p.city INTO g RETURN LENGTH(g[*].p)", nil, `[1,2,1]`},
		{"FOR p IN people COLLECT AGGREGATE oldest = MAX(p.age), total = SUM(p.age) RETURN [oldest, total]", nil, `[[42,98]]`},
		{"FOR p IN people FILTER p.age > 100 COLLECT WITH COUNT INTO n RETURN n", nil, `[0]`},
	} {
		q, err := Parse(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		got, err := Run(q, people, c.binds)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		data, _ := json.Marshal(got)
		if string(data) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, data, c.want)
		}
	}
}

// TestRunErrors: bind parameters missing or not declared, an unknown
// collection, variable and function fail with ArangoDB's numbers.
func TestRunErrors(t *testing.T) {
	for _, c := range []struct {
		src   string
		binds map[string]any
		num   int
	}{
		{"FOR p IN people FILTER p.age > @min RETURN p", nil, 1551},
		{"FOR p IN people RETURN p", map[string]any{"x": 1}, 1552},
		{"FOR p IN nobody RETURN p", nil, 1203},
		{"RETURN y", nil, 1512},
		{"RETURN NO_SUCH_FN(1)", nil, 1540},
	} {
		q, err := Parse(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		_, err = Run(q, people, c.binds)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Num != c.num {
			t.Errorf("%s: %v, want errorNum %d", c.src, err, c.num)
		}
	}
}

// TestFunctions: the string, array, document, numeric and type functions,
// each on a value written by hand.
func TestFunctions(t *testing.T) {
	for src, want := range map[string]string{
		"RETURN CONCAT_SEPARATOR('-', 'a', ['b', null], 1)":                                                                               `["a-b-1"]`,
		"RETURN [SUBSTRING('hello', 1, 3), SUBSTRING('hello', -2)]":                                                                       `[["ell","lo"]]`,
		"RETURN [CONTAINS('abc', 'b'), STARTS_WITH('abc', 'b'), LIKE('abc', 'a%'), REGEX_TEST('abc', '^a.c$')]":                           `[[true,false,true,true]]`,
		"RETURN [SPLIT('a,b', ','), TRIM('  x ')]":                                                                                        `[[["a","b"],"x"]]`,
		"RETURN [FIRST([1,2]), LAST([1,2]), NTH([1,2], 1), NTH([1], 5)]":                                                                  `[[1,2,2,null]]`,
		"RETURN [PUSH([1], 2), APPEND([1], [2, 3]), UNIQUE([1, 1, 2]), SORTED([3, 1, 2]), REVERSE([1, 2])]":                               `[[[1,2],[1,2,3],[1,2],[1,2,3],[2,1]]]`,
		"RETURN [FLATTEN([1, [2, [3]]]), FLATTEN([1, [2, [3]]], 2), UNION([1], [2]), POSITION([1, 2], 2, true)]":                          `[[[1,2,[3]],[1,2,3],[1,2],1]]`,
		"RETURN [HAS({a: 1}, 'a'), ATTRIBUTES({b: 1, a: 2}), MERGE({a: 1}, {b: 2}), KEEP({a: 1, b: 2}, 'a'), UNSET({a: 1, b: 2}, ['a'])]": `[[true,["a","b"],{"a":1,"b":2},{"a":1},{"b":2}]]`,
		"RETURN PARSE_IDENTIFIER('people/a')":                                                                                             `[{"collection":"people","key":"a"}]`,
		"RETURN [ABS(-2), FLOOR(1.5), CEIL(1.2), ROUND(2.5), SQRT(9), POW(2, 3), SQRT(-1)]":                                               `[[2,1,2,3,3,8,null]]`,
		"RETURN [IS_NULL(null), IS_STRING('a'), IS_NUMBER(1), IS_ARRAY([]), IS_OBJECT({}), TO_BOOL(''), TO_ARRAY(1), NOT_NULL(null, 2)]":  `[[true,true,true,true,true,false,[1],2]]`,
	} {
		q, err := Parse(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, err := Run(q, people, nil)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		data, _ := json.Marshal(got)
		if string(data) != want {
			t.Errorf("%s:\n got %s\nwant %s", src, data, want)
		}
	}
}

// FuzzRun: any query that parses runs to values or an error, never a
// panic (a hostile query must not take the graph pod down).
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"FOR p IN people FILTER p.age > 30 SORT p.name RETURN p.name",
		"FOR p IN people COLLECT c = p.city INTO g WITH COUNT INTO n RETURN {c, n, g}",
		"RETURN [1, 'a', null, {a: [1]}][*].a",
		"FOR x IN 1..3 LET y = (FOR z IN 1..x RETURN z) RETURN SUM(y)",
		"RETURN KEEP({a: 1}, 'a', ['b']) ?: FLATTEN([[1]], 3)",
		"FOR p IN people LIMIT 1, 2 RETURN DISTINCT p.tags[-1]",
		"RETURN " + strings.Repeat("(", 400) + "1" + strings.Repeat(")", 400),
		"RETURN 0" + strings.Repeat(" + 1", 490),
		"FOR a IN 1..1000 FOR b IN 1..1000 RETURN [a, b]",
		"FOR p IN people INSERT p INTO out OPTIONS {ignoreErrors: true} RETURN NEW",
		"FOR i IN 1..3 UPSERT {i} INSERT {i} UPDATE {n: OLD.n + 1} IN out",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		q, err := Parse(src)
		if err != nil {
			return
		}
		// Within a budget, as the graph pod runs it: ranges may multiply,
		// the limits stop them.
		b := budget.New(context.Background(), "query", budget.Limits{Memory: 16 << 20, Wall: 2 * time.Second})
		defer b.Close()
		_, _ = RunWithin(q, newMemStore(people), nil, b)
	})
}
