package aql

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// show writes a query as a compact S-expression, for the tests.
func show(x any) string {
	switch v := x.(type) {
	case *Query:
		var parts []string
		for _, op := range v.Ops {
			parts = append(parts, show(op))
		}
		return strings.Join(parts, " ")
	case *For:
		return fmt.Sprintf("(FOR %s %s)", v.Var, show(v.In))
	case *Traversal:
		s := fmt.Sprintf("(TRAVERSE %s,%s,%s %s..%s %s %s", v.Vertex, v.Edge, v.Path, show(v.Min), show(v.Max), v.Direction, show(v.Start))
		if v.Graph != nil {
			s += " GRAPH " + show(v.Graph)
		}
		for _, e := range v.Edges {
			s += " EDGES " + strings.TrimSpace(e.Direction+" "+show(e.Name))
		}
		if v.Prune != nil {
			s += " PRUNE " + show(v.Prune)
		}
		if v.Options != nil {
			s += " OPTIONS " + show(v.Options)
		}
		return s + ")"
	case *ShortestPath:
		s := fmt.Sprintf("(SHORTEST %s,%s %s %s TO %s", v.Vertex, v.Edge, v.Direction, show(v.Start), show(v.Target))
		if v.Graph != nil {
			s += " GRAPH " + show(v.Graph)
		}
		for _, e := range v.Edges {
			s += " EDGES " + show(e.Name)
		}
		return s + ")"
	case *Filter:
		return "(FILTER " + show(v.Cond) + ")"
	case *Let:
		return fmt.Sprintf("(LET %s %s)", v.Var, show(v.Value))
	case *Sort:
		var ks []string
		for _, k := range v.Keys {
			d := ""
			if k.Desc {
				d = " DESC"
			}
			ks = append(ks, show(k.Value)+d)
		}
		return "(SORT " + strings.Join(ks, ", ") + ")"
	case *Limit:
		if v.Offset != nil {
			return fmt.Sprintf("(LIMIT %s %s)", show(v.Offset), show(v.Count))
		}
		return "(LIMIT " + show(v.Count) + ")"
	case *Collect:
		s := "(COLLECT"
		for _, a := range v.Groups {
			s += fmt.Sprintf(" %s=%s", a.Var, show(a.Value))
		}
		for _, a := range v.Aggregates {
			s += fmt.Sprintf(" AGG %s=%s", a.Var, show(a.Value))
		}
		if v.Into != "" {
			s += " INTO " + v.Into
			if v.IntoValue != nil {
				s += "=" + show(v.IntoValue)
			}
		}
		if v.CountInto != "" {
			s += " COUNT " + v.CountInto
		}
		return s + ")"
	case *Return:
		if v.Distinct {
			return "(RETURN DISTINCT " + show(v.Value) + ")"
		}
		return "(RETURN " + show(v.Value) + ")"
	case *Literal:
		if s, ok := v.Value.(string); ok {
			return fmt.Sprintf("%q", s)
		}
		if v.Value == nil {
			return "null"
		}
		return fmt.Sprint(v.Value)
	case *Var:
		return v.Name
	case *Bind:
		if v.Collection {
			return "@@" + v.Name
		}
		return "@" + v.Name
	case *Attr:
		return show(v.Obj) + "." + v.Name
	case *Index:
		return show(v.Obj) + "[" + show(v.Index) + "]"
	case *Expand:
		if v.Then != nil {
			return show(v.Obj) + "[*]" + strings.TrimPrefix(show(v.Then), "CURRENT")
		}
		return show(v.Obj) + "[*]"
	case *Current:
		return "CURRENT"
	case *Call:
		var args []string
		for _, a := range v.Args {
			args = append(args, show(a))
		}
		return v.Name + "(" + strings.Join(args, ", ") + ")"
	case *Unary:
		return "(" + v.Op + " " + show(v.X) + ")"
	case *Binary:
		return "(" + show(v.L) + " " + v.Op + " " + show(v.R) + ")"
	case *Ternary:
		if v.Then == nil {
			return "(" + show(v.Cond) + " ?: " + show(v.Else) + ")"
		}
		return "(" + show(v.Cond) + " ? " + show(v.Then) + " : " + show(v.Else) + ")"
	case *Array:
		var es []string
		for _, e := range v.Elems {
			es = append(es, show(e))
		}
		return "[" + strings.Join(es, ", ") + "]"
	case *Object:
		var fs []string
		for _, f := range v.Fields {
			if f.Computed != nil {
				fs = append(fs, "["+show(f.Computed)+"]: "+show(f.Value))
			} else {
				fs = append(fs, f.Name+": "+show(f.Value))
			}
		}
		return "{" + strings.Join(fs, ", ") + "}"
	case *Subquery:
		return "(" + show(v.Query) + ")"
	}
	return fmt.Sprintf("?%T", x)
}

// TestParse: every form of the subset, with operator precedence, as
// written by hand.
func TestParse(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"FOR u IN users RETURN u", "(FOR u users) (RETURN u)"},
		{"FOR u IN @@coll FILTER u.age >= @min && u.active == true || NOT u.admin SORT u.name DESC, u.age LIMIT 2, 10 RETURN DISTINCT u.name",
			`(FOR u @@coll) (FILTER (((u.age >= @min) AND (u.active == true)) OR (NOT u.admin))) (SORT u.name DESC, u.age) (LIMIT 2 10) (RETURN DISTINCT u.name)`},
		{"LET xs = [1, 2.5, 'a', null] FOR x IN xs FILTER x IN [1, 2] AND x NOT IN @no RETURN {x, double: x * 2 + 1, [CONCAT('k', x)]: -x}",
			`(LET xs [1, 2.5, "a", null]) (FOR x xs) (FILTER ((x IN [1, 2]) AND (x NOT IN @no))) (RETURN {x: x, double: ((x * 2) + 1), [CONCAT("k", x)]: (- x)})`},
		{"FOR u IN users COLLECT city = u.city, age = u.age INTO g WITH COUNT INTO n RETURN {city, n}",
			`(FOR u users) (COLLECT city=u.city age=u.age INTO g COUNT n) (RETURN {city: city, n: n})`},
		{"FOR u IN users COLLECT AGGREGATE total = SUM(u.n) INTO g = u.name RETURN total",
			`(FOR u users) (COLLECT AGG total=SUM(u.n) INTO g=u.name) (RETURN total)`},
		{"FOR v, e, p IN 1..3 OUTBOUND 'people/a' GRAPH 'social' PRUNE v.stop == true OPTIONS {uniqueVertices: 'path'} RETURN p.vertices[*].name",
			`(TRAVERSE v,e,p 1..3 OUTBOUND "people/a" GRAPH "social" PRUNE (v.stop == true) OPTIONS {uniqueVertices: "path"}) (RETURN p.vertices[*].name)`},
		{"FOR v IN INBOUND @start knows, OUTBOUND likes RETURN v._key",
			`(TRAVERSE v,, 1..1 INBOUND @start EDGES knows EDGES OUTBOUND likes) (RETURN v._key)`},
		{"FOR v, e IN ANY SHORTEST_PATH 'people/a' TO 'people/d' GRAPH 'social' RETURN v",
			`(SHORTEST v,e ANY "people/a" TO "people/d" GRAPH "social") (RETURN v)`},
		{"RETURN (FOR x IN 1..3 RETURN x * x)", `(RETURN ((FOR x (1 .. 3)) (RETURN (x * x))))`},
		{"RETURN a < b ? LENGTH(c) : d.e[0] ?: 'none'", `(RETURN ((a < b) ? LENGTH(c) : (d.e[0] ?: "none")))`},
		{"RETURN x LIKE 'a%' && y =~ '^b' && z NOT LIKE 'c'", `(RETURN (((x LIKE "a%") AND (y =~ "^b")) AND (z NOT LIKE "c")))`},
	} {
		q, err := Parse(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := show(q); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

// TestParseErrors: queries outside the grammar fail with ArangoDB's
// message and the position of the offending token.
func TestParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		"":                               "query is empty",
		"FOR u IN users":                 "unexpected end of query near '' at position 1:15",
		"FOR u IN users RETURN":          "unexpected end of query near '' at position 1:22",
		"FOR u users RETURN u":           "unexpected identifier near 'users RETURN u' at position 1:7",
		"FOR u IN users FILTER RETURN u": "unexpected RETURN keyword near 'RETURN u' at position 1:23",
		"RETURN [1, 2":                   "unexpected end of query near '' at position 1:13",
		"RETURN 1 RETURN 2":              "unexpected RETURN keyword near 'RETURN 2' at position 1:10",
		"FOR u IN users\nSORT u.x DESC LIMIT x y RETURN u": "unexpected identifier near 'y RETURN u' at position 2:23",
	} {
		_, err := Parse(src)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want ...%s", src, err, want)
		}
	}
}

// FuzzParse: any input parses or fails with a SyntaxError, never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"FOR u IN users FILTER u.a == 1 RETURN u",
		"FOR v, e, p IN 1..3 OUTBOUND 'a/b' GRAPH 'g' RETURN p",
		"FOR u IN c COLLECT a = u.a INTO g WITH COUNT INTO n RETURN {a, n}",
		"RETURN (FOR x IN [1] RETURN x)[0] ?: {a: [*]}",
		"FOR v IN ANY SHORTEST_PATH @s TO @t k RETURN v",
		"RETURN " + strings.Repeat("(", 600) + "1" + strings.Repeat(")", 600),
		"RETURN 0" + strings.Repeat(" + 1", 600),
		"RETURN " + strings.Repeat("[{a:!", 300),
		"LET x = {} RETURN x" + strings.Repeat(".a[0]", 300),
		"FOR i IN 1..3 INSERT {a: i} INTO c OPTIONS {overwriteMode: 'ignore'} RETURN NEW",
		"FOR u IN c UPDATE u WITH {n: u.n + 1} IN c OPTIONS {keepNull: false} LET x = OLD RETURN [x, NEW]",
		"REPLACE {_key: 'a', b: (1 IN [1])} IN @@c",
		"FOR u IN c REMOVE u._key IN c",
		"UPSERT {a: 1} INSERT {a: 1, n: 1} UPDATE {n: OLD.n + 1} IN c RETURN {o: OLD, n: NEW}",
		"UPSERT {a: 1} INSERT {} REPLACE {} INTO c LET x = (REMOVE 'k' IN d) RETURN x",
		"UPSERT FILTER CURRENT.a == @a INSERT {a: @a} UPDATE {} IN @@c OPTIONS {}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			var qe *QueryError
			if !errors.As(err, &se) && !(errors.As(err, &qe) && qe.Num == ErrTooMuchNesting) {
				t.Fatalf("%q: %T %v", src, err, err)
			}
		}
	})
}
