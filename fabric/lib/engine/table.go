package engine

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/fabricops/fabric/fabric/lib/frame"
)

// This file builds frames from rows of Go values with column types under
// the engine's control, so that row-wise bots keep the types of the
// columns they do not change (an int64 column with only nulls left stays
// int64, where frame.FromRows would make it a string column).

// kind is the type of a column the engine builds.
type kind uint8

const (
	kAny   kind = iota // no preference: inferred from the values
	kInt               // int64
	kFloat             // float64
	kBool              // bool
	kStr               // string
	kTime              // timestamp[ns, UTC]
)

// kindOf returns the kind an Arrow type is read back as.
func kindOf(t arrow.DataType) kind {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return kInt
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return kFloat
	case arrow.BOOL:
		return kBool
	case arrow.TIMESTAMP, arrow.DATE32, arrow.DATE64:
		return kTime
	}
	return kStr
}

// kindsOf returns the kinds of a frame's columns.
func kindsOf(f *frame.Frame) []kind {
	fs := f.Schema().Fields()
	out := make([]kind, len(fs))
	for i, fd := range fs {
		out[i] = kindOf(fd.Type)
	}
	return out
}

// rowsOf returns every row of f.
func rowsOf(f *frame.Frame) [][]any {
	out := make([][]any, f.NumRows())
	for i := range out {
		out[i] = f.Row(i)
	}
	return out
}

// emptyFrame returns a frame without columns or rows.
func emptyFrame() *frame.Frame {
	f, err := frame.FromRows(nil, nil)
	if err != nil {
		panic(err) // cannot happen: no columns
	}
	return f
}

// norm converts a Go value to one of nil, int64, float64, bool, string and
// time.Time.
func norm(v any) any {
	switch x := v.(type) {
	case nil, int64, float64, bool, string:
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	case time.Time:
		return x.UTC()
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// inferKind returns the kind of a column of values, given the kind it had
// (kAny if none): the kind of its values, or hint when they are all null,
// float when ints meet floats (or a float hint), and string when kinds mix.
func inferKind(vals func(yield func(any) bool), hint kind) kind {
	const (
		sInt = 1 << iota
		sFloat
		sBool
		sStr
		sTime
	)
	seen := 0
	for v := range vals {
		switch v.(type) {
		case nil:
		case int64:
			seen |= sInt
		case float64:
			seen |= sFloat
		case bool:
			seen |= sBool
		case time.Time:
			seen |= sTime
		default:
			seen |= sStr
		}
	}
	switch seen {
	case 0:
		if hint == kAny {
			return kStr
		}
		return hint
	case sInt:
		if hint == kFloat {
			return kFloat
		}
		return kInt
	case sFloat, sInt | sFloat:
		return kFloat
	case sBool:
		return kBool
	case sTime:
		return kTime
	}
	return kStr
}

// build makes a frame of columns from rows (short rows are padded with
// nulls), typing each column from its values and its hint (hints may be
// shorter than columns; missing hints are kAny).
func build(columns []string, hints []kind, rows [][]any) (*frame.Frame, error) {
	seen := map[string]bool{}
	for _, c := range columns {
		if seen[c] {
			return nil, fmt.Errorf("column '%s' appears twice", c)
		}
		seen[c] = true
	}
	for i, r := range rows {
		if len(r) > len(columns) {
			return nil, fmt.Errorf("row %d has %d values for %d columns", i, len(r), len(columns))
		}
		for j, v := range r {
			r[j] = norm(v)
		}
	}
	at := func(r []any, c int) any {
		if c < len(r) {
			return r[c]
		}
		return nil
	}
	fields := make([]arrow.Field, len(columns))
	arrs := make([]arrow.Array, len(columns))
	mem := memory.DefaultAllocator
	for c, name := range columns {
		hint := kAny
		if c < len(hints) {
			hint = hints[c]
		}
		k := inferKind(func(yield func(any) bool) {
			for _, r := range rows {
				if !yield(at(r, c)) {
					return
				}
			}
		}, hint)
		var b array.Builder
		switch k {
		case kInt:
			b = array.NewInt64Builder(mem)
		case kFloat:
			b = array.NewFloat64Builder(mem)
		case kBool:
			b = array.NewBooleanBuilder(mem)
		case kTime:
			b = array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"})
		default:
			b = array.NewStringBuilder(mem)
		}
		for _, r := range rows {
			v := at(r, c)
			if v == nil {
				b.AppendNull()
				continue
			}
			switch bb := b.(type) {
			case *array.Int64Builder:
				bb.Append(v.(int64))
			case *array.Float64Builder:
				switch x := v.(type) {
				case int64:
					bb.Append(float64(x))
				default:
					bb.Append(x.(float64))
				}
			case *array.BooleanBuilder:
				bb.Append(v.(bool))
			case *array.TimestampBuilder:
				bb.Append(arrow.Timestamp(v.(time.Time).UnixNano()))
			case *array.StringBuilder:
				bb.Append(str(v))
			}
		}
		arrs[c] = b.NewArray()
		b.Release()
		fields[c] = arrow.Field{Name: name, Type: arrs[c].DataType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecord(schema, arrs, int64(len(rows)))
	for _, a := range arrs {
		a.Release()
	}
	return frame.ReadFrom(&recSource{schema: schema, recs: []arrow.Record{rec}})
}

// rebuild builds a frame with the columns of f, from rows, keeping f's
// column types where the values allow.
func rebuild(f *frame.Frame, rows [][]any) (*frame.Frame, error) {
	return build(f.Columns(), kindsOf(f), rows)
}

// recSource is a frame.Source over records it owns.
type recSource struct {
	schema *arrow.Schema
	recs   []arrow.Record
}

func (s *recSource) Schema() *arrow.Schema { return s.schema }

func (s *recSource) Next() (arrow.Record, error) {
	if len(s.recs) == 0 {
		return nil, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	return r, nil
}

func (s *recSource) Close() error { return nil }

// chainSource streams the batches of several frames of one schema.
type chainSource struct {
	schema *arrow.Schema
	srcs   []frame.Source
}

func (s *chainSource) Schema() *arrow.Schema { return s.schema }

func (s *chainSource) Next() (arrow.Record, error) {
	for len(s.srcs) > 0 {
		r, err := s.srcs[0].Next()
		if err != io.EOF {
			return r, err
		}
		s.srcs = s.srcs[1:]
	}
	return nil, io.EOF
}

func (s *chainSource) Close() error { return nil }

// concat appends frames: the result has the union of their columns, in the
// order they first appear, and nulls where a frame lacks a column. Frames
// of one schema are joined without copying.
func concat(frames ...*frame.Frame) (*frame.Frame, error) {
	var fs []*frame.Frame
	for _, f := range frames {
		if f != nil && (f.NumCols() > 0 || f.NumRows() > 0) {
			fs = append(fs, f)
		}
	}
	switch len(fs) {
	case 0:
		return emptyFrame(), nil
	case 1:
		return fs[0], nil
	}
	same := true
	for _, f := range fs[1:] {
		if !f.Schema().Equal(fs[0].Schema()) {
			same = false
			break
		}
	}
	if same {
		cs := &chainSource{schema: fs[0].Schema()}
		for _, f := range fs {
			cs.srcs = append(cs.srcs, f.Source())
		}
		return frame.ReadFrom(cs)
	}
	var cols []string
	var hints []kind
	index := map[string]int{}
	for _, f := range fs {
		ks := kindsOf(f)
		for i, c := range f.Columns() {
			if _, ok := index[c]; !ok {
				index[c] = len(cols)
				cols = append(cols, c)
				hints = append(hints, ks[i])
			}
		}
	}
	var rows [][]any
	for _, f := range fs {
		pos := make([]int, f.NumCols())
		for i, c := range f.Columns() {
			pos[i] = index[c]
		}
		for i := 0; i < f.NumRows(); i++ {
			row := make([]any, len(cols))
			for j, v := range f.Row(i) {
				row[pos[j]] = v
			}
			rows = append(rows, row)
		}
	}
	return build(cols, hints, rows)
}

// colIndex returns the position of each name among the columns of f.
func colIndex(f *frame.Frame) map[string]int {
	m := map[string]int{}
	for i, c := range f.Columns() {
		m[c] = i
	}
	return m
}

// str formats a value as text: "" for null, integers in decimal, floats
// in their shortest form with a ".0" when integral (as Python prints
// them), booleans as true/false and times in RFC 3339.
func str(v any) string {
	switch x := norm(v).(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return fmtFloat(x)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

func fmtFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return s
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == 'e' {
			return s
		}
	}
	return s + ".0"
}

// key returns a value's text for matching keys: like str, except that an
// integral float matches the integer (1.0 is "1").
func key(v any) string {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e18 {
		return strconv.FormatInt(int64(f), 10)
	}
	return str(v)
}
