package tables

import (
	"testing"
)

// TestSchemaErrorsReadAsDecimals: a violation names the value and the
// limit as the user wrote them (193.5, not 387/2), and where it is.
func TestSchemaErrorsReadAsDecimals(t *testing.T) {
	doc := map[string]any{"type": "object", "properties": map[string]any{
		"cpu":   map[string]any{"type": "number", "maximum": 100.5},
		"count": map[string]any{"type": "integer", "minimum": 3},
	}}
	rs, err := CompileSchema("s", doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		row  map[string]any
		want string
	}{
		{map[string]any{"cpu": 193.5}, "at /cpu: maximum: 193.5 is greater than 100.5"},
		{map[string]any{"cpu": 0.125e3}, "at /cpu: maximum: 125 is greater than 100.5"},
		{map[string]any{"count": 2.0}, "at /count: minimum: 2 is less than 3"},
	} {
		err := rs.Validate(tc.row)
		if err == nil {
			t.Fatalf("%v: no error", tc.row)
		}
		if got := oneLine(err); got != tc.want {
			t.Errorf("%v: got %q, want %q (raw: %v)", tc.row, got, tc.want, err)
		}
	}
}
