package aql

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/budget"
)

// chain is a graph of one path v/0 -> v/1 -> ... -> v/n-1, made on
// demand.
type chain int

func (c chain) Scan(string, func(map[string]any) bool) error { return nil }

func (c chain) Vertex(id string) (map[string]any, error) {
	i, err := strconv.Atoi(strings.TrimPrefix(id, "v/"))
	if err != nil || i < 0 || i >= int(c) {
		return nil, nil
	}
	return map[string]any{"_id": id, "_key": strconv.Itoa(i)}, nil
}

func (c chain) Edges(_, vertex, direction string) ([]map[string]any, error) {
	i, _ := strconv.Atoi(strings.TrimPrefix(vertex, "v/"))
	if direction != "outbound" && direction != "OUTBOUND" || i+1 >= int(c) {
		return nil, nil
	}
	return []map[string]any{{"_id": "e/" + strconv.Itoa(i), "_from": vertex, "_to": "v/" + strconv.Itoa(i+1)}}, nil
}

func (c chain) GraphEdges(string) ([]string, error) { return []string{"e"}, nil }

// TestHostileDeepTraversal: a depth-first walk down a chain of a million
// edges stops at the query's memory limit (each level's stack counts, and
// no row is kept before the last level)
// instead of growing the goroutine's stack to the end of the process.
func TestHostileDeepTraversal(t *testing.T) {
	q, err := Parse("FOR v IN 999999..999999 OUTBOUND 'v/0' e RETURN v._key")
	if err != nil {
		t.Fatal(err)
	}
	b := budget.New(context.Background(), "query", budget.Limits{Memory: 16 << 20})
	defer b.Close()
	_, err = RunWithin(q, chain(1_000_000), nil, b)
	var qe *QueryError
	if !errors.As(err, &qe) || qe.Num != 32 || !strings.Contains(qe.Msg, "memory limit of 16 MB") {
		t.Fatalf("got %v, want the memory limit", err)
	}
	// A walk of ordinary depth goes through.
	q, _ = Parse("FOR v IN 1..100 OUTBOUND 'v/0' e RETURN v._key")
	rows, err := RunWithin(q, chain(50), nil, budget.New(context.Background(), "query", budget.Limits{Memory: 32 << 20}))
	if err != nil || len(rows) != 49 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
}
