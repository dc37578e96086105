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

// docSource is a memStore that looks documents up by _id, for DOCUMENT().
type docSource struct{ *memStore }

func (d docSource) Vertex(id string) (map[string]any, error) {
	coll, key, _ := strings.Cut(id, "/")
	return d.colls[coll][key], nil
}

func (docSource) Edges(string, string, string) ([]map[string]any, error) { return nil, nil }
func (docSource) GraphEdges(string) ([]string, error)                    { return nil, nil }

// TestMoreFunctions: RANGE, DOCUMENT in its forms, COLLECT ... INTO ...
// KEEP, DATE_NOW and SLEEP.
func TestMoreFunctions(t *testing.T) {
	src := docSource{newMemStore(base())}
	for q, want := range map[string]string{
		"RETURN [RANGE(1, 4), RANGE(1, 4, 2), RANGE(4, 1), RANGE(1, 2, 0.5), RANGE(-0.75, 1.1, 0.5)]": `[[[1,2,3,4],[1,3],[4,3,2,1],[1,1.5,2],[-0.75,-0.25,0.25,0.75]]]`,
		"RETURN [RANGE(1, 4, 0), RANGE(1, 4, -1), RANGE(2, 2)]":                                       `[[null,null,[2]]]`,
		"RETURN DOCUMENT('c/a').n":                                                                `[1]`,
		"RETURN DOCUMENT(['c/b', 'c/zz', 'c/a'])[*]._key":                                         `[["b","a"]]`,
		"RETURN [DOCUMENT('c', 'b')._key, DOCUMENT('c', ['a', 'b'])[*].n, DOCUMENT('c/zz')]":      `[["b",[1,2],null]]`,
		"FOR x IN 1..4 LET y = x * 2 LET z = 0 COLLECT odd = x % 2 INTO g KEEP y RETURN [odd, g]": `[[0,[{"y":4},{"y":8}]],[1,[{"y":2},{"y":6}]]]`,
		"RETURN [IS_NUMBER(DATE_NOW()), DATE_NOW() > 1.7e12, SLEEP(0.01)]":                        `[[true,true,null]]`,
	} {
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		got, err := Run(p, src, nil)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if data, _ := json.Marshal(got); string(data) != want {
			t.Errorf("%q: %s, want %s", q, data, want)
		}
	}
	// RANGE is charged before it is made; SLEEP ends with the query's run
	// time.
	for q, num := range map[string]int{
		"RETURN LENGTH(RANGE(1, 5000000))": ErrResourceLimit,
		"RETURN RANGE(0, 1, 1e-9)":         ErrResourceLimit,
		"RETURN SLEEP(30)":                 ErrQueryKilled,
	} {
		p, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		b := budget.New(context.Background(), "query", budget.Limits{Memory: 16 << 20, Wall: 200 * time.Millisecond})
		start := time.Now()
		_, err = RunWithin(p, src, nil, b)
		b.Close()
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Num != num || time.Since(start) > 5*time.Second {
			t.Errorf("%q: %v after %v, want error %d", q, err, time.Since(start), num)
		}
	}
}
