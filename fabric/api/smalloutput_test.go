package api_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/api"
)

// TestSmallOutputRoundTrip: a small output's cells come back from the
// record's JSON as they went in, each of its kinds exactly (an int64 past
// 2^53, the largest uint64, a time to the nanosecond, nulls).
func TestSmallOutputRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	rows := [][]any{
		{"web-1", 93.5, int64(-9007199254740993), uint64(math.MaxUint64), true, at, nil},
		{nil, 1e300, int64(3), uint64(0), false, nil, nil},
	}
	s := api.NewSmallOutput([]string{"host", "cpu", "n", "u", "up", "seen", "none"}, rows, "the table")
	if s == nil {
		t.Fatal("no small output")
	}
	b, err := json.Marshal(api.Job{JobID: "j", SmallOutput: s})
	if err != nil {
		t.Fatal(err)
	}
	var j api.Job
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	got, err := j.SmallOutput.Cells()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) || j.SmallOutput.Text != "the table" {
		t.Fatalf("got %#v %q, want %#v", got, j.SmallOutput.Text, rows)
	}
	if j.SmallOutput.Kinds[6] != "" {
		t.Fatalf("an all-null column has kind %q", j.SmallOutput.Kinds[6])
	}
}

// TestSmallOutputLimits: no copy of an output over the rows or the bytes
// allowed, or with a cell JSON does not keep (NaN, an infinity, an
// unknown type), or whose column changes kind.
func TestSmallOutputLimits(t *testing.T) {
	many := make([][]any, api.SmallOutputRows+1)
	for i := range many {
		many[i] = []any{int64(i)}
	}
	if api.NewSmallOutput([]string{"i"}, many[:api.SmallOutputRows], "") == nil {
		t.Fatalf("no copy of %d rows", api.SmallOutputRows)
	}
	for name, rows := range map[string][][]any{
		"too many rows":  many,
		"too many bytes": {{strings.Repeat("x", api.SmallOutputBytes)}},
		"NaN":            {{math.NaN()}},
		"infinity":       {{math.Inf(-1)}},
		"unknown type":   {{[]byte("x")}},
		"mixed kinds":    {{int64(1)}, {"1"}},
		"short row":      {{}},
	} {
		if s := api.NewSmallOutput([]string{"c"}, rows, ""); s != nil {
			t.Errorf("%s: a copy %+v", name, s)
		}
	}
}
