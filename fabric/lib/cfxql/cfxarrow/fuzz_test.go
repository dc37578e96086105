package cfxarrow

import (
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/cfxql/internal/cfxqltest"
)

// FuzzAgree checks that the vector evaluator agrees with Match on every
// query that parses, over a batch with a column of every type (cfxql's
// FuzzParse fuzzes the parser itself).
func FuzzAgree(f *testing.F) {
	for _, s := range cfxqltest.Seeds {
		f.Add(s)
	}
	rec := typedRecord(f)
	dicts := recordDicts(rec)
	f.Fuzz(func(t *testing.T, src string) {
		q, err := Parse(src)
		if err != nil {
			return
		}
		q = q.WithNow(fixedNow)
		if _, err := q.Mask(rec); err != nil {
			if !strings.HasPrefix(err.Error(), "unknown column ") {
				t.Fatalf("%q: Mask: %v", src, err)
			}
			return
		}
		agree(t, q, rec, dicts)
	})
}
