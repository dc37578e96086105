package viewer

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/fabricops/fabric/fabric/lib/cfxql/cfxarrow"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

func arrayRecord(schema *arrow.Schema, arrs []arrow.Array, n int64) arrow.Record {
	return array.NewRecord(schema, arrs, n)
}

// order is what the rows shown are: the table's rows that a query
// matches (all without one), sorted by a column or in the table's order.
type order struct {
	query string // "" for every row
	sort  string // "" for the table's order
	desc  bool
}

// view is an order computed: the table's rows in the order shown (nil:
// every row, in the table's order).
type view struct {
	order
	rows []int32
}

// progress counts the rows a background job has read.
type progress struct{ rows atomic.Int64 }

// scanEach streams the columns cols of t, calling fn with each batch and
// the index of its first row; it counts the rows read into p.
func scanEach(ctx context.Context, t Table, cols []string, p *progress, fn func(rec arrow.Record, base int64) error) error {
	src, err := t.Scan(ctx, cols)
	if err != nil {
		return err
	}
	defer src.Close()
	var base int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(rec, base)
		base += rec.NumRows()
		rec.Release()
		if err != nil {
			return err
		}
		p.rows.Store(base)
	}
}

// checkColumns fails on a column the table lacks.
func checkColumns(t Table, cols []string) error {
	for _, c := range cols {
		if !slices.ContainsFunc(t.Columns(), func(d frame.DType) bool { return d.Column == c }) {
			return fmt.Errorf("no column %q", c)
		}
	}
	return nil
}

// compute returns the view of o over t: the rows the query matches (read
// its columns only), sorted by o.sort (read that column only). A table
// with more than maxSort rows is not sorted.
func compute(ctx context.Context, t Table, o order, maxSort int64, p *progress) (view, error) {
	v := view{order: o}
	if o.query != "" {
		q, err := cfxarrow.Parse(o.query)
		if err != nil {
			return v, err
		}
		if from, _ := q.Outputs(); from != nil {
			return v, fmt.Errorf("the viewer filters rows: leave out GET")
		}
		if err := checkColumns(t, q.Columns()); err != nil {
			return v, err
		}
		sel := q.Selector()
		rows := []int32{}
		err = scanEach(ctx, t, q.Columns(), p, func(rec arrow.Record, base int64) error {
			if base+rec.NumRows() > math.MaxInt32 {
				return fmt.Errorf("the viewer filters tables of up to %d rows", math.MaxInt32)
			}
			s, all, err := sel(rec)
			if err != nil {
				return err
			}
			if all {
				for i := range rec.NumRows() {
					rows = append(rows, int32(base+i))
				}
				return nil
			}
			for _, i := range s {
				rows = append(rows, int32(base)+i)
			}
			return nil
		})
		if err != nil {
			return v, err
		}
		v.rows = rows
	}
	if o.sort == "" {
		return v, nil
	}
	if err := checkColumns(t, []string{o.sort}); err != nil {
		return v, err
	}
	if n := t.Rows(); n > maxSort {
		return v, fmt.Errorf("sorting reads the column into memory: the table has %d rows, more than the viewer sorts (%d)", n, maxSort)
	}
	p.rows.Store(0)
	keys, err := readKeys(ctx, t, o.sort, maxSort, p)
	if err != nil {
		return v, err
	}
	if v.rows == nil {
		v.rows = make([]int32, keys.len())
		for i := range v.rows {
			v.rows[i] = int32(i)
		}
	}
	keys.sort(v.rows, o.desc)
	return v, nil
}

// keys are a column's values, for sorting: numbers, or text.
type keys struct {
	nums  []float64 // numbers, times, booleans (NaN for null)
	ints  []int64   // integers and times exactly
	texts []string  // anything else, as text
	bytes int64     // the length of texts
	null  []bool
}

func (k *keys) len() int { return len(k.null) }

// readKeys reads the column col of t as sort keys.
func readKeys(ctx context.Context, t Table, col string, maxSort int64, p *progress) (*keys, error) {
	k := &keys{}
	err := scanEach(ctx, t, []string{col}, p, func(rec arrow.Record, base int64) error {
		if base+rec.NumRows() > maxSort {
			return fmt.Errorf("sorting reads the column into memory: the table has more than %d rows, what the viewer sorts", maxSort)
		}
		arr := rec.Column(0)
		n := arr.Len()
		for i := range n {
			k.null = append(k.null, arr.IsNull(i))
		}
		switch a := arr.(type) {
		case *array.Int64:
			k.ints = append(k.ints, a.Int64Values()...)
		case *array.Int32:
			for _, x := range a.Int32Values() {
				k.ints = append(k.ints, int64(x))
			}
		case *array.Timestamp:
			for _, x := range a.TimestampValues() {
				k.ints = append(k.ints, int64(x))
			}
		case *array.Float64:
			k.nums = append(k.nums, a.Float64Values()...)
		case *array.Float32:
			for _, x := range a.Float32Values() {
				k.nums = append(k.nums, float64(x))
			}
		case *array.Boolean:
			for i := range n {
				b := int64(0)
				if a.Value(i) {
					b = 1
				}
				k.ints = append(k.ints, b)
			}
		default:
			for i := range n {
				text := ""
				switch {
				case arr.IsNull(i):
				case isString(arr):
					text = strings.Clone(arr.(*array.String).Value(i))
				default:
					text = fmt.Sprint(frame.ValueAt(arr, i))
				}
				k.bytes += int64(len(text))
				k.texts = append(k.texts, text)
			}
			if k.bytes > maxSortBytes {
				return fmt.Errorf("sorting reads the column into memory: its text is over %s, more than the viewer sorts", size(maxSortBytes))
			}
		}
		return nil
	})
	return k, err
}

// size writes n bytes in MiB, or in bytes below one.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

func isString(arr arrow.Array) bool {
	_, ok := arr.(*array.String)
	return ok
}

// maxSortBytes bounds the text a sort holds (a variable for the tests).
var maxSortBytes int64 = 1 << 30

// sort sorts rows by their keys, nulls last either way, equal keys in
// the table's order.
func (k *keys) sort(rows []int32, desc bool) {
	var c func(a, b int32) int
	switch {
	case k.ints != nil:
		c = func(a, b int32) int { return cmp.Compare(k.ints[a], k.ints[b]) }
	case k.nums != nil:
		c = func(a, b int32) int { return cmp.Compare(k.nums[a], k.nums[b]) }
	default:
		c = func(a, b int32) int { return cmp.Compare(k.texts[a], k.texts[b]) }
	}
	slices.SortFunc(rows, func(a, b int32) int {
		r := 0
		switch na, nb := k.null[a], k.null[b]; {
		case na && nb:
		case na:
			return 1
		case nb:
			return -1
		case desc:
			r = c(b, a)
		default:
			r = c(a, b)
		}
		if r == 0 {
			return cmp.Compare(a, b)
		}
		return r
	})
}

// summary describes a column of the rows shown.
type summary struct {
	column, dtype string
	rows, nulls   int64
	min, max      string // numbers and times
	top           []count
	capped        bool // more distinct values than counted
}

type count struct {
	value string
	n     int64
}

// maxDistinct bounds the distinct values a summary counts (a variable
// for the tests).
var maxDistinct = 100_000

// summarize reads the column col of the rows rows of t (nil: all).
func summarize(ctx context.Context, t Table, col string, rows []int32, p *progress) (summary, error) {
	s := summary{column: col}
	for _, d := range t.Columns() {
		if d.Column == col {
			s.dtype = d.DType
		}
	}
	var lo, hi any
	var loT, hiT string
	counts := map[string]int64{}
	numeric := false
	var keep []int32
	if rows != nil {
		keep = slices.Clone(rows)
		slices.Sort(keep)
	}
	err := scanEach(ctx, t, []string{col}, p, func(rec arrow.Record, base int64) error {
		arr := rec.Column(0)
		visit := func(i int) {
			s.rows++
			if arr.IsNull(i) {
				s.nulls++
				return
			}
			v := frame.ValueAt(arr, i)
			switch x := v.(type) {
			case int64, uint64, float64, time.Time:
				numeric = true
				if lo == nil || less(x, lo) {
					lo, loT = x, frame.Cell(arr, i)
				}
				if hi == nil || less(hi, x) {
					hi, hiT = x, frame.Cell(arr, i)
				}
			default:
				text := frame.Cell(arr, i)
				if _, ok := counts[text]; ok || len(counts) < maxDistinct {
					counts[text]++
				} else {
					s.capped = true
				}
			}
		}
		if keep == nil {
			for i := range arr.Len() {
				visit(i)
			}
			return nil
		}
		for len(keep) > 0 && int64(keep[0]) < base+rec.NumRows() {
			visit(int(int64(keep[0]) - base))
			keep = keep[1:]
		}
		return nil
	})
	if numeric {
		s.min, s.max = loT, hiT
	}
	for v, n := range counts {
		s.top = append(s.top, count{v, n})
	}
	slices.SortFunc(s.top, func(a, b count) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return cmp.Compare(a.value, b.value)
	})
	if len(s.top) > 5 {
		s.top = s.top[:5]
	}
	return s, err
}

// less orders two values of one numeric or time column.
func less(a, b any) bool {
	switch x := a.(type) {
	case int64:
		return x < b.(int64)
	case uint64:
		return x < b.(uint64)
	case float64:
		return x < b.(float64)
	case time.Time:
		return x.Before(b.(time.Time))
	}
	return false
}
