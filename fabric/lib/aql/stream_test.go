package aql

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// TestFullCount: the rows that reach the last top-level LIMIT are
// counted, and a counting LIMIT still returns its rows.
func TestFullCount(t *testing.T) {
	for _, c := range []struct {
		src        string
		want, full int
	}{
		{"FOR x IN 1..100 FILTER x % 2 == 0 LIMIT 5 RETURN x", 5, 50},
		{"FOR x IN 1..100 LIMIT 10, 5 RETURN x", 5, 100},
		{"FOR p IN people SORT p.name LIMIT 1 RETURN p", 1, 4},
		{"FOR x IN 1..3 LIMIT 10 RETURN x", 3, 3},
		{"FOR x IN 1..7 RETURN x", 7, 7}, // no LIMIT: the results
		{"FOR x IN 1..10 LIMIT 8 FOR y IN 1..2 LIMIT 3 RETURN [x, y]", 3, 16},
	} {
		q, err := Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		full := q.CountFull()
		res, err := Run(q, people, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if len(res) != c.want || full.Of(len(res)) != c.full {
			t.Errorf("%s: %d results, fullCount %d; want %d, %d", c.src, len(res), full.Of(len(res)), c.want, c.full)
		}
	}
}

// TestStreamedLoop: a FOR, FILTERs, LETs and RETURN run row by row: a
// loop over half a million numbers holds only its results, and one that
// sleeps on each row stops when the query is cancelled.
func TestStreamedLoop(t *testing.T) {
	q, err := Parse("FOR i IN 1..500000 LET c = (FOR x IN 1..3 RETURN x * i) FILTER i % 50000 == 0 RETURN SUM(c)")
	if err != nil {
		t.Fatal(err)
	}
	b := budget.New(context.Background(), "query", budget.Limits{Memory: 1 << 20})
	res, err := RunWithin(q, nil, nil, b)
	b.Close()
	if err != nil || len(res) != 10 || res[9] != float64(3e6) {
		t.Fatalf("got %v %v", res, err)
	}

	q, err = Parse("FOR i IN 1..10000000 RETURN {i, s: SLEEP(1)}")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b = budget.New(ctx, "query", budget.Limits{})
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = RunWithin(q, nil, nil, b)
	b.Close()
	var qe *QueryError
	if !errors.As(err, &qe) || qe.Num != ErrQueryKilled {
		t.Fatalf("got %v, want the query killed", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("stopped %v after it began", d)
	}
}
