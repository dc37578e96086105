package frame_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// TestString compares String with the golden files under
// testdata/string; go test -run TestString -update rewrites them.
func TestString(t *testing.T) {
	var long strings.Builder
	long.WriteString("n,half,label,day\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&long, "%d,%g,row %d,2024-01-%02d\n", i, float64(i)/2, i, i+1)
	}
	var wide strings.Builder
	for c := 0; c < 25; c++ {
		if c > 0 {
			wide.WriteByte(',')
		}
		fmt.Fprintf(&wide, "c%d", c)
	}
	wide.WriteByte('\n')
	for r := 0; r < 2; r++ {
		for c := 0; c < 25; c++ {
			if c > 0 {
				wide.WriteByte(',')
			}
			fmt.Fprintf(&wide, "%d", r*100+c)
		}
		wide.WriteByte('\n')
	}
	fromRows := func(cols []string, rows [][]any) *frame.Frame {
		f, err := frame.FromRows(cols, rows)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range []struct {
		name string
		f    *frame.Frame
	}{
		{"sample", sampleFrame(t)},
		{"long", multiBatch(t, long.String())},
		{"long_tail", multiBatch(t, long.String()).Tail(15)},
		{"wide", multiBatch(t, wide.String())},
		{"no_rows", sampleFrame(t).Head(0)},
		{"no_columns", fromRows(nil, nil)},
		{"floats", fromRows([]string{"x"}, [][]any{
			{0.1 + 0.2}, {1e20}, {-1.5e-9}, {3.0}, {math.NaN()}, {math.Inf(1)}, {math.Inf(-1)}, {nil}, {123456789.125},
		})},
		{"cells", fromRows([]string{"a very long column name that goes past forty runes", "é"}, [][]any{
			{strings.Repeat("long text ", 10), "tab\there"},
			{"line\nbreak", "ünïcödé"},
		})},
		{"sorted", mustSort(t, multiBatch(t, opsCSV), "k")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.f.String() + "\n"
			path := filepath.Join("testdata", "string", tc.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to make it)", err)
			}
			if got != string(want) {
				t.Errorf("String() =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func mustSort(t *testing.T, f *frame.Frame, by ...string) *frame.Frame {
	t.Helper()
	g, err := f.Sort(by, false)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
