package frame_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// opsCSV has nulls in every column and ties in k, to test sorting; read
// in batches of 2 it spans 4 batches.
const opsCSV = `k,v,s,t
b,3,x,2024-01-03T00:00:00Z
a,,y,
,1,z,2024-01-01T00:00:00Z
b,1,,2024-01-02T00:00:00Z
a,2,w,2024-01-05T00:00:00Z
c,2,v,2024-01-04T00:00:00Z
a,5,u,2024-01-06T00:00:00Z
`

// opsFrames returns the ops frame whole (one batch) and in batches of 2.
func opsFrames(t *testing.T) map[string]*frame.Frame {
	t.Helper()
	one, err := frame.Read(writeFile(t, "ops.csv", opsCSV), frame.Auto)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*frame.Frame{"one batch": one, "batches of 2": multiBatch(t, opsCSV)}
}

// opsRows are the rows of opsCSV.
func opsRows() [][]any {
	d := func(day int) any { return time.Date(2024, 1, day, 0, 0, 0, 0, time.UTC) }
	return [][]any{
		{"b", int64(3), "x", d(3)},
		{"a", nil, "y", nil},
		{nil, int64(1), "z", d(1)},
		{"b", int64(1), nil, d(2)},
		{"a", int64(2), "w", d(5)},
		{"c", int64(2), "v", d(4)},
		{"a", int64(5), "u", d(6)},
	}
}

// pick returns the rows of opsRows at indices.
func pick(indices ...int) [][]any {
	all := opsRows()
	out := [][]any{}
	for _, i := range indices {
		out = append(out, all[i])
	}
	return out
}

var opsColumns = []string{"k", "v", "s", "t"}

func TestOpsBasics(t *testing.T) {
	for name, f := range opsFrames(t) {
		t.Run(name, func(t *testing.T) {
			checkFrame(t, f, opsColumns, []frame.DType{
				{Column: "k", DType: "object"}, {Column: "v", DType: "int64"},
				{Column: "s", DType: "object"}, {Column: "t", DType: "datetime64[ns]"},
			}, opsRows())
			if f.NumRows() != 7 || f.NumCols() != 4 {
				t.Errorf("NumRows, NumCols = %d, %d", f.NumRows(), f.NumCols())
			}
			if f.MemBytes() <= 0 {
				t.Errorf("MemBytes = %d", f.MemBytes())
			}
			if mb := f.MemSizeMB(); mb != math.Round(float64(f.MemBytes())/(1<<20)*1e6)/1e6 {
				t.Errorf("MemSizeMB = %v for %d bytes", mb, f.MemBytes())
			}
			col, err := f.Column("v")
			if err != nil {
				t.Fatal(err)
			}
			want := []any{int64(3), nil, int64(1), int64(1), int64(2), int64(2), int64(5)}
			if !reflect.DeepEqual(col, want) {
				t.Errorf("Column(v) = %v, want %v", col, want)
			}
			_, err = f.Column("nope")
			wantErr(t, err, `no column "nope" (columns: k, v, s, t)`)
			for _, i := range []int{-1, 7} {
				func() {
					defer func() {
						if recover() == nil {
							t.Errorf("Row(%d) did not panic", i)
						}
					}()
					f.Row(i)
				}()
			}
		})
	}
}

func TestHeadTail(t *testing.T) {
	for name, f := range opsFrames(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				n          int
				head, tail [][]any
			}{
				{0, pick(), pick()},
				{-3, pick(), pick()},
				{1, pick(0), pick(6)},
				{3, pick(0, 1, 2), pick(4, 5, 6)},
				{4, pick(0, 1, 2, 3), pick(3, 4, 5, 6)},
				{7, opsRows(), opsRows()},
				{100, opsRows(), opsRows()},
			} {
				h, tl := f.Head(tc.n), f.Tail(tc.n)
				checkFrame(t, h, opsColumns, f.DTypes(), tc.head)
				checkFrame(t, tl, opsColumns, f.DTypes(), tc.tail)
				// Slices of slices.
				checkFrame(t, h.Tail(1), opsColumns, nil, tc.head[max(len(tc.head)-1, 0):])
				checkFrame(t, tl.Head(2), opsColumns, nil, tc.tail[:min(2, len(tc.tail))])
			}
			if got, want := f.Head(2).MemBytes(), f.MemBytes(); got <= 0 || got >= want {
				t.Errorf("Head(2).MemBytes = %d, frame %d", got, want)
			}
			if f.Head(0).MemBytes() != 0 {
				t.Errorf("Head(0).MemBytes = %d", f.Head(0).MemBytes())
			}
		})
	}
}

func TestSelect(t *testing.T) {
	for name, f := range opsFrames(t) {
		t.Run(name, func(t *testing.T) {
			g, err := f.Select([]string{"t", "k"})
			if err != nil {
				t.Fatal(err)
			}
			var want [][]any
			for _, r := range opsRows() {
				want = append(want, []any{r[3], r[0]})
			}
			checkFrame(t, g, []string{"t", "k"}, []frame.DType{{Column: "t", DType: "datetime64[ns]"}, {Column: "k", DType: "object"}}, want)
			// Repeating a column is allowed.
			g, err = f.Select([]string{"v", "v"})
			if err != nil {
				t.Fatal(err)
			}
			if g.NumCols() != 2 || g.NumRows() != 7 {
				t.Errorf("Select(v, v) is %d x %d", g.NumRows(), g.NumCols())
			}
			g, err = f.Select(nil)
			if err != nil || g.NumCols() != 0 {
				t.Errorf("Select(nil) = %v, %v", g, err)
			}
			_, err = f.Select([]string{"k", "missing"})
			wantErr(t, err, `no column "missing" (columns: k, v, s, t)`)
		})
	}
}

func TestSort(t *testing.T) {
	for name, f := range opsFrames(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				by   []string
				desc bool
				want [][]any
			}{
				// Stable, nulls last in both directions.
				{[]string{"k"}, false, pick(1, 4, 6, 0, 3, 5, 2)},
				{[]string{"k"}, true, pick(5, 0, 3, 1, 4, 6, 2)},
				{[]string{"v"}, false, pick(2, 3, 4, 5, 0, 6, 1)},
				{[]string{"v"}, true, pick(6, 0, 4, 5, 2, 3, 1)},
				{[]string{"k", "v"}, false, pick(4, 6, 1, 3, 0, 5, 2)},
				{[]string{"k", "v"}, true, pick(5, 0, 3, 6, 4, 1, 2)},
				{[]string{"v", "k"}, false, pick(3, 2, 4, 5, 0, 6, 1)},
				{[]string{"t"}, false, pick(2, 3, 0, 5, 4, 6, 1)},
				{[]string{"s"}, false, pick(6, 5, 4, 0, 1, 2, 3)},
			} {
				g, err := f.Sort(tc.by, tc.desc)
				if err != nil {
					t.Fatal(err)
				}
				checkFrame(t, g, opsColumns, f.DTypes(), tc.want)
			}
			// Sorting a slice.
			g, err := f.Tail(3).Sort([]string{"v"}, true)
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, g, pick(6, 4, 5))
			g, err = f.Head(0).Sort([]string{"v"}, false)
			if err != nil || g.NumRows() != 0 || g.NumCols() != 4 {
				t.Errorf("sorting no rows: %v, %v", g, err)
			}
			_, err = f.Sort([]string{"v", "zz"}, false)
			wantErr(t, err, `no column "zz"`)
			_, err = f.Sort(nil, false)
			wantErr(t, err, "sort needs at least one column")
		})
	}
}

func TestSortFloatsAndBools(t *testing.T) {
	f, err := frame.FromRows([]string{"x", "b"}, [][]any{
		{2.5, true}, {nil, false}, {-1.0, nil}, {math.Inf(1), true}, {0.0, false},
	})
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.Sort([]string{"x"}, false)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, g, [][]any{{-1.0, nil}, {0.0, false}, {2.5, true}, {math.Inf(1), true}, {nil, false}})
	g, err = f.Sort([]string{"b", "x"}, false)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, g, [][]any{{0.0, false}, {nil, false}, {2.5, true}, {math.Inf(1), true}, {-1.0, nil}})
}

func TestTake(t *testing.T) {
	for name, f := range opsFrames(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				idx  []int
				want [][]any
			}{
				{[]int{6, 0, 3}, pick(6, 0, 3)},
				{[]int{1, 1, 1}, pick(1, 1, 1)},
				{[]int{-1, 2, 7, 100, 5}, pick(2, 5)},
				{[]int{7, -1}, pick()},
				{nil, pick()},
				{[]int{0, 1, 2, 3, 4, 5, 6}, opsRows()},
			} {
				g := f.Take(tc.idx)
				checkFrame(t, g, opsColumns, f.DTypes(), tc.want)
			}
			checkRows(t, f.Tail(4).Take([]int{3, 0}), pick(6, 3))
		})
	}
}

// TestOpsChain runs operations on the results of others, and Release.
func TestOpsChain(t *testing.T) {
	for name, f := range opsFrames(t) {
		t.Run(name, func(t *testing.T) {
			g, err := f.Sort([]string{"v"}, false)
			if err != nil {
				t.Fatal(err)
			}
			g, err = g.Take([]int{4, 0, 1}).Select([]string{"s", "v"})
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, g.Head(2), [][]any{{"x", int64(3)}, {"z", int64(1)}})
			g.Release()
			if g.NumRows() != 0 {
				t.Errorf("NumRows after Release = %d", g.NumRows())
			}
			// The frame g came from is intact.
			checkRows(t, f, opsRows())
		})
	}
}

func TestSourceOfFrame(t *testing.T) {
	for name, f := range opsFrames(t) {
		t.Run(name, func(t *testing.T) {
			g, err := frame.ReadFrom(f.Source())
			if err != nil {
				t.Fatal(err)
			}
			checkFrame(t, g, opsColumns, f.DTypes(), opsRows())
		})
	}
}

func TestFromRows(t *testing.T) {
	when := time.Date(2024, 5, 6, 7, 8, 9, 10, time.FixedZone("X", 3600))
	for _, tc := range []struct {
		name  string
		rows  [][]any
		dtype string
		want  []any
	}{
		{"ints", [][]any{{1}, {int64(-2)}, {int32(3)}, {uint8(4)}, {nil}}, "int64", []any{int64(1), int64(-2), int64(3), int64(4), nil}},
		{"floats", [][]any{{1.5}, {float32(0.5)}}, "float64", []any{1.5, 0.5}},
		{"ints and floats", [][]any{{1}, {2.5}, {nil}}, "float64", []any{1.0, 2.5, nil}},
		{"bools", [][]any{{true}, {nil}, {false}}, "bool", []any{true, nil, false}},
		{"times are UTC", [][]any{{when}, {nil}}, "datetime64[ns]", []any{when.UTC(), nil}},
		{"strings", [][]any{{"a"}, {""}, {nil}}, "object", []any{"a", "", nil}},
		{"ISO strings stay strings", [][]any{{"2024-01-01"}}, "object", []any{"2024-01-01"}},
		{"mixed is string", [][]any{{1}, {"a"}, {true}, {2.5}, {when}}, "object",
			[]any{"1", "a", "true", "2.5", "2024-05-06T06:08:09.00000001Z"}},
		{"other values are formatted", [][]any{{time.Second}, {[]int{1, 2}}}, "object", []any{"1s", "[1 2]"}},
		{"all null", [][]any{{nil}, {nil}}, "object", []any{nil, nil}},
		{"short rows are padded", [][]any{{}, {1}}, "int64", []any{nil, int64(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := frame.FromRows([]string{"x"}, tc.rows)
			if err != nil {
				t.Fatal(err)
			}
			checkColumn(t, f, inferCase{dtype: tc.dtype, want: tc.want})
		})
	}

	f, err := frame.FromRows([]string{"a", "b", "c"}, [][]any{{1, "x", true}, {2}, {}})
	if err != nil {
		t.Fatal(err)
	}
	checkFrame(t, f, []string{"a", "b", "c"},
		[]frame.DType{{Column: "a", DType: "int64"}, {Column: "b", DType: "object"}, {Column: "c", DType: "bool"}},
		[][]any{{int64(1), "x", true}, {int64(2), nil, nil}, {nil, nil, nil}})

	f, err = frame.FromRows([]string{"a"}, nil)
	if err != nil || f.NumRows() != 0 || f.NumCols() != 1 {
		t.Errorf("no rows: %v, %v", f, err)
	}
	f, err = frame.FromRows(nil, nil)
	if err != nil || f.NumRows() != 0 || f.NumCols() != 0 {
		t.Errorf("nothing: %v, %v", f, err)
	}

	_, err = frame.FromRows([]string{"a", "a"}, nil)
	wantErr(t, err, `column "a" appears twice`)
	_, err = frame.FromRows([]string{"a"}, [][]any{{1}, {1, 2}})
	wantErr(t, err, "row 1 has 2 values for 1 columns")
	_, err = frame.FromRows([]string{"a"}, [][]any{{time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)}})
	wantErr(t, err, `row 0, column "a": cannot use 1500-01-01`)
	_, err = frame.FromRows([]string{"a"}, [][]any{{uint64(math.MaxUint64)}})
	wantErr(t, err, `row 0, column "a": cannot use 18446744073709551615`)
}
