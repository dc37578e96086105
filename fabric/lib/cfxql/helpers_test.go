package cfxql

import (
	"github.com/fabricops/fabric/fabric/lib/cfxql/internal/cfxqltest"
)

// fixedNow is the now of the tests: Saturday 15 January 2022, noon UTC.
var fixedNow = cfxqltest.Now

// fixtureDicts returns the rows of the fixture table as dicts, as Match
// sees them (a null is a missing key).
func fixtureDicts() []map[string]any {
	out := make([]map[string]any, len(cfxqltest.Rows))
	for i, row := range cfxqltest.Rows {
		m := map[string]any{}
		for c, v := range row {
			if v != nil {
				m[cfxqltest.Cols[c]] = v
			}
		}
		out[i] = m
	}
	return out
}
