package starvalue_test

import (
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/starvalue"
	"go.starlark.net/starlark"
)

// TestOneRuleForInstants: a record's time (written by api.Timestamp) and
// the same instant met as a Go time, in a struct, a map or a table's
// cell, are one Starlark value.
func TestOneRuleForInstants(t *testing.T) {
	at := time.Date(2026, 11, 26, 17, 39, 32, 272361000, time.FixedZone("x", 3600))
	want := starlark.String(api.Timestamp(at))
	if starvalue.TimeFormat != api.TimeFormat {
		t.Fatalf("TimeFormat %q, the records' %q", starvalue.TimeFormat, api.TimeFormat)
	}
	type rec struct {
		When time.Time `json:"when"`
	}
	fromStruct, err := starvalue.ToStarlark(rec{at})
	if err != nil {
		t.Fatal(err)
	}
	v, _, _ := fromStruct.(*starlark.Dict).Get(starlark.String("when"))
	direct, _ := starvalue.ToStarlark(at)
	for name, got := range map[string]starlark.Value{"a cell": starvalue.Scalar(at), "a time": direct, "a struct's field": v} {
		if got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
