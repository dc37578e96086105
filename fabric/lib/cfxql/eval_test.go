package cfxql

import (
	"slices"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/cfxql/internal/cfxqltest"
)

// TestEval runs the shared evaluator cases through Match over the rows
// of the fixture as dicts (cfxarrow runs the same cases through Mask and
// Filter).
func TestEval(t *testing.T) {
	dicts := fixtureDicts()
	for _, g := range cfxqltest.Groups {
		t.Run(g.Name, func(t *testing.T) {
			for _, c := range g.Cases {
				q, err := Parse(c.Query)
				if err != nil {
					t.Fatalf("%s: %v", c.Query, err)
				}
				q = q.WithNow(fixedNow)
				got := []int64{}
				for _, row := range dicts {
					ok, err := q.Match(row)
					if err != nil {
						t.Fatalf("%s: Match: %v", c.Query, err)
					}
					if ok {
						got = append(got, int64(row["id"].(int)))
					}
				}
				want := c.Want
				if want == nil {
					want = []int64{}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: Match gives %v, want %v", c.Query, got, want)
				}
			}
		})
	}
}
