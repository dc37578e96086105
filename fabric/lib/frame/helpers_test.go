package frame_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// ts is a UTC time of the sample frames.
func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

var sampleColumns = []string{"id", "price", "ok", "name", "when"}

var sampleDTypes = []frame.DType{
	{Column: "id", DType: "int64"},
	{Column: "price", DType: "float64"},
	{Column: "ok", DType: "bool"},
	{Column: "name", DType: "object"},
	{Column: "when", DType: "datetime64[ns]"},
}

// sampleRows covers every type, nulls in every column (and a row of
// nulls), negative and large numbers, and text that needs quoting or
// escaping. Timestamps have millisecond precision, which Excel keeps.
func sampleRows() [][]any {
	return [][]any{
		{int64(1), 1.5, true, "plain", ts("2024-01-02T03:04:05.123Z")},
		{int64(-2), -0.25, false, `comma, "quote"`, ts("1999-12-31T23:59:59Z")},
		{nil, nil, nil, nil, nil},
		{int64(1) << 40, 1e-3, true, "multi\nline\r\ntext", ts("1970-01-01T00:00:00Z")},
		{int64(0), 12345.678, nil, "naïve ☃ \\ \t tab", nil},
		{nil, 2.5, false, "  spaced  ", ts("1960-06-15T12:00:00.5Z")},
	}
}

// sampleFrame builds the sample frame (one batch).
func sampleFrame(t testing.TB) *frame.Frame {
	t.Helper()
	f, err := frame.FromRows(sampleColumns, sampleRows())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// multiBatch writes rows as CSV and reads them back in batches of 2, so
// that the frame spans several record batches.
func multiBatch(t testing.TB, csv string) *frame.Frame {
	t.Helper()
	src, err := frame.OpenReader(strings.NewReader(csv), frame.CSV, frame.NoCompression, frame.WithBatchSize(2))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := frame.ReadFrom(src)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// equalValue compares two values of a Row: times by instant and UTC.
func equalValue(a, b any) bool {
	if ta, ok := a.(time.Time); ok {
		tb, ok := b.(time.Time)
		return ok && ta.Equal(tb) && ta.Location() == time.UTC && tb.Location() == time.UTC
	}
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && (fa == fb || math.IsNaN(fa) && math.IsNaN(fb))
	}
	return reflect.DeepEqual(a, b)
}

// rows returns every row of f.
func rows(f *frame.Frame) [][]any {
	out := make([][]any, f.NumRows())
	for i := range out {
		out[i] = f.Row(i)
	}
	return out
}

// checkRows compares the rows of f with want, value by value.
func checkRows(t testing.TB, f *frame.Frame, want [][]any) {
	t.Helper()
	if f.NumRows() != len(want) {
		t.Fatalf("NumRows = %d, want %d\n%v", f.NumRows(), len(want), f)
	}
	for i, w := range want {
		got := f.Row(i)
		if len(got) != len(w) {
			t.Fatalf("row %d has %d values, want %d", i, len(got), len(w))
		}
		for c := range w {
			if !equalValue(got[c], w[c]) {
				t.Errorf("row %d column %d = %#v (%T), want %#v (%T)", i, c, got[c], got[c], w[c], w[c])
			}
		}
	}
}

// checkFrame compares columns, dtypes and rows.
func checkFrame(t testing.TB, f *frame.Frame, cols []string, dtypes []frame.DType, want [][]any) {
	t.Helper()
	if got := f.Columns(); !reflect.DeepEqual(got, cols) {
		t.Errorf("Columns = %q, want %q", got, cols)
	}
	if dtypes != nil {
		if got := f.DTypes(); !reflect.DeepEqual(got, dtypes) {
			t.Errorf("DTypes = %v, want %v", got, dtypes)
		}
	}
	checkRows(t, f, want)
}

// writeFile writes data to name in a new temporary directory and returns
// its path.
func writeFile(t testing.TB, name string, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantErr checks that err is an error whose message holds every part.
func wantErr(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one holding %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not hold %q", err, p)
		}
	}
}

// dirEntries lists the names in dir.
func dirEntries(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// numbersCSV is a CSV of n rows: i, i*1.5, a label and a flag.
func numbersCSV(n int) string {
	var b strings.Builder
	b.WriteString("n,half,label,even\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,%g,row %d,%t\n", i, float64(i)*1.5+0.5, i, i%2 == 0)
	}
	return b.String()
}
