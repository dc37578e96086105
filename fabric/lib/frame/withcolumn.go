package frame

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// WithColumn returns the frame with a column name holding vals, one Go
// value a row as FromRows takes them: the column of that name replaced
// in place, or a new column added last. The column's type is inferred
// from vals as FromRows infers it; the other columns are shared.
func (f *Frame) WithColumn(name string, vals []any) (*Frame, error) {
	if len(vals) != f.NumRows() {
		return nil, fmt.Errorf("column %q has %d values for %d rows", name, len(vals), f.NumRows())
	}
	rows := make([][]any, len(vals))
	for i := range vals {
		rows[i] = vals[i : i+1 : i+1]
	}
	vc := inferValueColumn(name, rows, 0, false)
	fields := slices.Clone(f.schema.Fields())
	at := slices.IndexFunc(fields, func(fd arrow.Field) bool { return fd.Name == name })
	if at >= 0 {
		fields[at] = vc.field()
	} else {
		at = len(fields)
		fields = append(fields, vc.field())
	}
	md := f.schema.Metadata()
	schema := arrow.NewSchema(fields, &md)
	recs := make([]arrow.Record, 0, len(f.recs))
	for b, rec := range f.recs {
		lo, hi := f.starts[b], f.starts[b+1]
		arr, bad := buildValueColumn(vc, rows[lo:hi], 0)
		if bad >= 0 {
			for _, r := range recs {
				r.Release()
			}
			return nil, fmt.Errorf("row %d, column %q: cannot use %s", lo+bad, name, describeValue(vals[lo+bad]))
		}
		cols := slices.Clone(rec.Columns())
		if at < len(cols) {
			cols[at] = arr
		} else {
			cols = append(cols, arr)
		}
		recs = append(recs, array.NewRecord(schema, cols, int64(hi-lo)))
		arr.Release()
	}
	return newFrame(schema, recs), nil
}

// ContainsAny reports whether a string cell of the frame contains one of
// subs (empty ones are ignored), reading the cells in place.
func (f *Frame) ContainsAny(subs []string) bool {
	subs = slices.DeleteFunc(slices.Clone(subs), func(s string) bool { return s == "" })
	if len(subs) == 0 {
		return false
	}
	for _, rec := range f.recs {
		for _, col := range rec.Columns() {
			s, ok := col.(*array.String)
			if !ok {
				continue
			}
			for i := 0; i < s.Len(); i++ {
				if s.IsNull(i) {
					continue
				}
				v := s.Value(i)
				for _, sub := range subs {
					if strings.Contains(v, sub) {
						return true
					}
				}
			}
		}
	}
	return false
}
