package aql

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// deep are queries that nest 200,000 levels deep, each a way the parser
// or the evaluator could recurse without bound.
var deep = map[string]string{
	"parentheses":  "RETURN " + strings.Repeat("(", 200_000) + "1" + strings.Repeat(")", 200_000),
	"a chain of +": "RETURN 0" + strings.Repeat(" + 1", 200_000),
	"negations":    "RETURN " + strings.Repeat("!", 200_000) + "true",
	"arrays":       "RETURN " + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000),
	"objects":      "RETURN " + strings.Repeat("{a:", 200_000) + "1" + strings.Repeat("}", 200_000),
	"attributes":   "LET x = {} RETURN x" + strings.Repeat(".a", 200_000),
	"indexes":      "LET x = [] RETURN x" + strings.Repeat("[0]", 200_000),
	"subqueries":   strings.Repeat("RETURN (", 100_000) + "RETURN 1" + strings.Repeat(")", 100_000),
	"ternaries":    "RETURN " + strings.Repeat("true ? 1 : ", 200_000) + "2",
}

// TestHostileDeepNesting: a query nested 200,000 levels deep (the
// attack that overflowed the parser's stack and ended the process of
// every tenant) fails with ArangoDB's error 1524 (too much nesting),
// quickly, whatever the construct; over the default size limit it fails
// on its size before it is read.
func TestHostileDeepNesting(t *testing.T) {
	roomy := Limits{QueryBytes: 8 << 20}
	for name, src := range deep {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := ParseWithin(src, roomy)
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Num != ErrTooMuchNesting || !strings.Contains(qe.Msg, "nested more than 500 deep") {
				t.Fatalf("want error 1524 naming the nesting limit, got %v", err)
			}
			if strings.Contains(qe.Msg, "\n") {
				t.Errorf("the error is more than one line: %q", qe.Msg)
			}
			if _, err := Parse(src); !errors.As(err, &qe) || qe.Num != ErrTooMuchNesting {
				t.Errorf("within the default limits: want error 1524, got %v", err)
			} else if len(src) > DefaultLimits().QueryBytes && !strings.Contains(qe.Msg, "over its limit of 256 KB") {
				t.Errorf("over the default size: want the size limit named, got %v", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refusing took %v", d)
			}
		})
	}
}

// TestNestingAsArangoDB: ArangoDB's own limit test (AqlQueryLimitsTest):
// 498 additions in a chain run, a deeper chain is refused.
func TestNestingAsArangoDB(t *testing.T) {
	src := "RETURN 0"
	for i := 1; i <= 498; i++ {
		src += " + " + strconv.Itoa(i)
	}
	q, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(q, people, nil)
	if err != nil || len(res) != 1 || res[0] != float64(124251) {
		t.Fatalf("got %v %v, want [124251]", res, err)
	}
	for i := 499; i <= 500; i++ {
		src += " + " + strconv.Itoa(i)
	}
	var qe *QueryError
	if _, err := Parse(src); !errors.As(err, &qe) || qe.Num != ErrTooMuchNesting {
		t.Fatalf("500 additions: want error 1524, got %v", err)
	}
}

// TestHostileQueryBudgets: queries that would grow without bound (a cross
// product of 100 million rows, a COLLECT, a SORT and a DISTINCT over it,
// a huge result) stop at their budget's limit with ArangoDB's error for
// it, having held no more than the limit by the budget's account.
func TestHostileQueryBudgets(t *testing.T) {
	const memory = 32 << 20
	for _, c := range []struct {
		name, src string
		limits    budget.Limits
		num       int
		says      string
	}{
		{"cross product", "FOR a IN 1..10000 FOR b IN 1..10000 RETURN [a, b]", budget.Limits{Memory: memory}, 32, "memory limit of 32 MB"},
		{"collect", "FOR a IN 1..10000 FOR b IN 1..10000 COLLECT x = a * b INTO g RETURN x", budget.Limits{Memory: memory}, 32, "memory limit"},
		{"sort", "FOR a IN 1..10000 FOR b IN 1..10000 SORT a * b RETURN 1", budget.Limits{Memory: memory}, 32, "memory limit"},
		{"distinct", "FOR a IN 1..10000 FOR b IN 1..10000 RETURN DISTINCT CONCAT(a, '-', b)", budget.Limits{Memory: memory}, 32, "memory limit"},
		{"subqueries", "FOR a IN 1..10000 LET s = (FOR b IN 1..10000 RETURN b) RETURN s", budget.Limits{Memory: memory}, 32, "memory limit"},
		{"one big range", "RETURN LENGTH(1..9000000)", budget.Limits{Memory: memory}, 32, "memory limit"},
		{"result", "FOR a IN 1..100000 RETURN CONCAT('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', a)", budget.Limits{Memory: 1 << 30, Result: 1 << 20}, 32, "result size limit of 1 MB"},
		{"run time", "FOR a IN 1..10000 FOR b IN 1..10000 FILTER a == -b RETURN a", budget.Limits{Wall: 200 * time.Millisecond}, 1500, "run time limit of 200ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, err := Parse(c.src)
			if err != nil {
				t.Fatal(err)
			}
			b := budget.New(context.Background(), "query", c.limits)
			defer b.Close()
			start := time.Now()
			_, err = RunWithin(q, people, nil, b)
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Num != c.num || !strings.Contains(qe.Msg, c.says) {
				t.Fatalf("want error %d saying %q, got %v", c.num, c.says, err)
			}
			if c.limits.Memory > 0 && c.name != "one big range" && b.Peak() > c.limits.Memory+1<<20 { // a range is refused before it is made
				t.Errorf("held %s, over the limit of %s", budget.Bytes(b.Peak()), budget.Bytes(c.limits.Memory))
			}
			t.Logf("%s after %v: %s", c.name, time.Since(start).Round(time.Millisecond), qe.Msg)
		})
	}
}

// TestHostileCancelledQuery: a query whose context is cancelled (its
// client left) stops with ERROR_QUERY_KILLED.
func TestHostileCancelledQuery(t *testing.T) {
	q, err := Parse("FOR a IN 1..10000 FOR b IN 1..10000 FILTER a == -b RETURN a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := budget.New(ctx, "query", budget.Limits{})
	defer b.Close()
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = RunWithin(q, people, nil, b)
	var qe *QueryError
	if !errors.As(err, &qe) || qe.Num != ErrQueryKilled {
		t.Fatalf("want error 1500, got %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("stopped %v after it was cancelled", d)
	}
}

// TestBudgetedQueriesStillRun: the queries of TestRun give the same
// results within a budget, and hold nothing more than their result when
// done.
func TestBudgetedQueriesStillRun(t *testing.T) {
	for _, src := range []string{
		"FOR p IN people FILTER p.age > 30 SORT p.name RETURN p.name",
		"FOR p IN people COLLECT c = p.city INTO g WITH COUNT INTO n RETURN {c, n, g}",
		"FOR x IN 1..3 LET y = (FOR z IN 1..x RETURN z) RETURN SUM(y)",
		// Temporaries are dropped: 20,000 rows each summing a range of
		// 1,000 (charged 480 MB if nothing were dropped) run within 64 MB.
		"FOR a IN 1..20000 LET s = SUM(1..1000) FILTER s < 0 RETURN a",
		"FOR a IN 1..300 RETURN SUM((FOR b IN 1..1000 RETURN b))",
	} {
		q, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Run(q, people, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := budget.New(context.Background(), "query", budget.Limits{Memory: 64 << 20})
		got, err := RunWithin(q, people, nil, b)
		b.Close()
		if err != nil || canonicalKey(got) != canonicalKey(want) {
			t.Errorf("%s: got %v %v, want %v", src, got, err, want)
		}
		if b.Held() > sizeOf(got)+1024 || b.Held() <= 0 {
			t.Errorf("%s: holds %d bytes after it ran, its result is %d", src, b.Held(), sizeOf(got))
		}
	}
}
