package cfxarrow

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// Filter returns the rows of f that match, then projected by GET: the
// GET columns in their order, aliased ones renamed. Batches are filtered
// in parallel. A column the query names that f lacks is an error
// ("unknown column 'cpu'"), even when f has no rows.
func (q *Query) Filter(f *frame.Frame) (*frame.Frame, error) {
	src, err := q.FilterSource(f.Source())
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return frame.ReadFrom(src)
}

// prepare checks that schema has every column the condition reads and
// returns the indices of the output columns and the output schema.
func (q *Query) prepare(schema *arrow.Schema) ([]int, *arrow.Schema, error) {
	for _, c := range q.Columns() {
		if len(schema.FieldIndices(c)) == 0 {
			return nil, nil, fmt.Errorf("unknown column '%s'", c)
		}
	}
	return q.project(schema)
}

// project returns the indices of the output columns in schema and the
// output schema (GET's columns renamed by their aliases, or all).
func (q *Query) project(schema *arrow.Schema) ([]int, *arrow.Schema, error) {
	proj := q.Projection()
	if proj == nil {
		idx := make([]int, schema.NumFields())
		for i := range idx {
			idx[i] = i
		}
		return idx, schema, nil
	}
	idx := make([]int, len(proj))
	fields := make([]arrow.Field, len(proj))
	seen := map[string]bool{}
	for i, c := range proj {
		j := schema.FieldIndices(c.Name)
		if len(j) == 0 {
			return nil, nil, fmt.Errorf("unknown column '%s'", c.Name)
		}
		idx[i], fields[i] = j[0], schema.Field(j[0])
		if c.Alias != "" {
			fields[i].Name = c.Alias
		}
		if seen[fields[i].Name] {
			return nil, nil, fmt.Errorf("column '%s' appears twice in GET", fields[i].Name)
		}
		seen[fields[i].Name] = true
	}
	return idx, arrow.NewSchema(fields, nil), nil
}

// filterRecord returns the rows of rec that match, in the columns cols;
// nil when none does.
func (q *Query) filterRecord(rec arrow.Record, cols []int, schema *arrow.Schema, now time.Time) (arrow.Record, error) {
	sel, all, err := q.selectRows(rec, now)
	if err != nil {
		return nil, err
	}
	n := rec.NumRows()
	if !all {
		if len(sel) == 0 {
			return nil, nil
		}
		n = int64(len(sel))
	}
	arrs := make([]arrow.Array, len(cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, j := range cols {
		if all {
			arrs[i] = rec.Column(j)
			arrs[i].Retain()
			continue
		}
		if arrs[i], err = frame.Take(rec.Column(j), sel); err != nil {
			return nil, fmt.Errorf("filter column '%s': %v", rec.ColumnName(j), err)
		}
	}
	return array.NewRecord(schema, arrs, n), nil
}

// Selector returns a function that picks the rows of a batch that match:
// their indices in increasing order, or all when every row does (sel is
// then nil). A batch must have the columns the condition reads. Times
// relative to now are fixed when Selector is called, so every batch of a
// scan sees the same now.
func (q *Query) Selector() func(rec arrow.Record) (sel []int32, all bool, err error) {
	now := q.Now()
	return func(rec arrow.Record) ([]int32, bool, error) { return q.selectRows(rec, now) }
}

func (q *Query) selectRows(rec arrow.Record, now time.Time) ([]int32, bool, error) {
	if q.MatchesAll() {
		return nil, true, nil
	}
	mask, err := q.maskBits(rec, now)
	if err != nil {
		return nil, false, err
	}
	n := int(rec.NumRows())
	if mask.all(n) {
		return nil, true, nil
	}
	return selection(mask, mask.count()), false, nil
}

// selection returns the indices of the m set bits.
func selection(mask bitset, m int) []int32 {
	sel := make([]int32, 0, m)
	for w, word := range mask {
		base := int32(w << 6)
		for word != 0 {
			sel = append(sel, base+int32(bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return sel
}
