package cfxarrow

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/fabricops/fabric/fabric/lib/cfxql/internal/cfxqltest"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// fixedNow is the now of the tests: Saturday 15 January 2022, noon UTC.
var fixedNow = cfxqltest.Now

// fixtureFrame is the shared fixture table, in one batch.
func fixtureFrame(t testing.TB) *frame.Frame {
	t.Helper()
	f, err := frame.FromRows(cfxqltest.Cols, cfxqltest.Rows)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// rowDicts returns the rows of f as dicts, as Match sees them.
func rowDicts(f *frame.Frame) []map[string]any {
	cols := f.Columns()
	out := make([]map[string]any, f.NumRows())
	for i := range out {
		m := map[string]any{}
		for c, v := range f.Row(i) {
			m[cols[c]] = v
		}
		out[i] = m
	}
	return out
}

// ids returns the ids (column 0) of the rows of f.
func ids(t testing.TB, f *frame.Frame) []int64 {
	t.Helper()
	out := []int64{}
	for i := 0; i < f.NumRows(); i++ {
		out = append(out, f.Row(i)[0].(int64))
	}
	return out
}

// checkBoth runs a query through Match (over every row dict), Mask (over
// the whole batch and over a slice of it, to exercise offsets) and Filter
// (over a frame of several batches), and checks each gives want.
func checkBoth(t *testing.T, query string, want []int64) {
	t.Helper()
	q, err := Parse(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	q = q.WithNow(fixedNow)
	f := fixtureFrame(t)
	if want == nil {
		want = []int64{}
	}
	// Match.
	got := []int64{}
	for _, row := range rowDicts(f) {
		ok, err := q.Match(row)
		if err != nil {
			t.Fatalf("%s: Match: %v", query, err)
		}
		if ok {
			got = append(got, row["id"].(int64))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: Match gives %v, want %v", query, got, want)
	}
	// Mask over the whole batch, then over rows 1..4.
	rec := f.Records()[0]
	for _, from := range []int64{0, 1} {
		r := rec.NewSlice(from, rec.NumRows())
		m, err := q.Mask(r)
		if err != nil {
			t.Fatalf("%s: Mask: %v", query, err)
		}
		got := []int64{}
		for i := 0; i < m.Len(); i++ {
			if m.IsNull(i) {
				t.Fatalf("%s: Mask has a null", query)
			}
			if m.Value(i) {
				got = append(got, int64(from)+int64(i)+1)
			}
		}
		exp := slices.DeleteFunc(slices.Clone(want), func(id int64) bool { return id <= from })
		if !slices.Equal(got, exp) {
			t.Errorf("%s: Mask (from row %d) gives %v, want %v", query, from, got, exp)
		}
		m.Release()
		r.Release()
	}
	// Filter over three batches.
	multi := splitFrame(f, 2, 3)
	out, err := q.Filter(multi)
	if err != nil {
		t.Fatalf("%s: Filter: %v", query, err)
	}
	if got := ids(t, out); !slices.Equal(got, want) {
		t.Errorf("%s: Filter gives %v, want %v", query, got, want)
	}
}

// splitFrame returns f (one batch) as batches cut at the rows at.
func splitFrame(f *frame.Frame, at ...int64) *frame.Frame {
	rec := f.Records()[0]
	var recs []arrow.Record
	from := int64(0)
	for _, a := range append(at, rec.NumRows()) {
		recs = append(recs, rec.NewSlice(from, a))
		from = a
	}
	return frame.FromRecords(f.Schema(), recs)
}
